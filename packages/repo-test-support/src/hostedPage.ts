/**
 * The payer's side of the hosted page (2.3) over HTTP, as the demo-server tests with a provider's
 * stand-in walk it: open the page, pay with a method through its form, read the QR code it shows.
 */

/** The QR image (a data URL) a hosted page's HTML shows, if it shows one. */
export const shownQr = (html: string): string | undefined => /<img class="qr" id="qr" src="([^"]+)"/.exec(html)?.[1]

/**
 * Opens the hosted page at `pageUrl` (which must answer 200) and posts its form with `method`
 * and the page's cookie, as a payer's browser does; gives the POST's status and the cookie, and
 * `shown()`, the page's HTML fetched again with it.
 */
export const payOnHostedPage = async (pageUrl: string, method: string) => {
  const page = await fetch(pageUrl, { redirect: "manual" })
  if (page.status !== 200) throw new Error(`the hosted page answered ${page.status}`)
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0]!
  const action = /<form method="post" action="([^"]+)"/.exec(await page.text())?.[1]?.replaceAll("&amp;", "&")
  if (action === undefined) throw new Error("the hosted page has no form to pay with")
  const paid = await fetch(new URL(action, pageUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: `method=${method}`,
    redirect: "manual"
  })
  return { status: paid.status, cookie, shown: async () => (await fetch(pageUrl, { headers: { cookie } })).text() }
}
