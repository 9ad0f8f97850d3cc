/**
 * The hosted checkout in a real headless Chromium: for each simulated method a payer opens the
 * link, chooses, fills in, pays and lands on return_url exactly as given (4.1.4); bad links are
 * refused; the page in Thai on a 360 px screen. Every page passes axe-core and makes no request
 * to a third party; each step is screenshotted (test-results/hosted-checkout/, not committed).
 */
import { HostedCheckout } from "@tender/core"
import jsqr from "jsqr"
import type { Page } from "playwright-core"
import { parse } from "promptparse"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { axeViolations, closeBrowser, launch, recordRequests, shot, startBrowser, unavailable } from "./hosted/browser.js"
import type { TestServer } from "./hosted/server.js"
import { createIntent, getIntent, keys, start, startMounted, startShop, waitForIntent } from "./hosted/server.js"

/** jsqr is CommonJS: its function is the module itself or its `default`, depending on the loader. */
const jsQR: typeof jsqr.default = (jsqr as unknown as { default?: typeof jsqr.default }).default ?? (jsqr as unknown as typeof jsqr.default)

const skip = unavailable !== undefined && process.env.CI !== "true"
if (skip) process.stdout.write(`hosted checkout browser tests skipped: ${unavailable}\n`)

describe.skipIf(skip)("hosted checkout in Chromium", () => {
  let server: TestServer
  let shop: Awaited<ReturnType<typeof startShop>>
  /** A return_url with characters a careless redirect would re-encode or extend, on the merchant's own origin. */
  let returnUrl: string
  beforeAll(async () => {
    server = await start({ previousSecrets: ["hosted-test-secret-before-rotation"] })
    shop = await startShop()
    returnUrl = `${shop.origin}/orders/42/done?ref=a%20b&empty=&x=%2F`
    await startBrowser()
  }, 60_000)
  afterAll(async () => {
    await closeBrowser()
    await server?.close()
    await shop?.close()
  })

  /** A fresh browser context, recording every request it makes. */
  const browse = async (options: Parameters<typeof launch>[0] = {}) => {
    const browser = await launch(options)
    const requests = recordRequests(browser.context)
    const page = await browser.context.newPage()
    return {
      page,
      /** Every request went to us, to data: (the QR image) or, at the end, to return_url. */
      assertNoThirdParty: () => {
        for (const url of requests) {
          if (url.startsWith(server.url) || url.startsWith("data:") || url === returnUrl) continue
          assert.fail(`request to a third party: ${url}`)
        }
      },
      close: browser.close
    }
  }

  /** Screenshot the step and run axe-core in the page: no violations. */
  const step = async (page: Page, test: string, name: string) => {
    await shot(page, test, name)
    const violations = await axeViolations(page)
    assert.deepStrictEqual(violations, [], `${test}/${name}: accessibility violations`)
  }

  it("4.1.4 PromptPay: the payer chooses, scans the QR code (simulated) and lands on return_url exactly as given", async () => {
    const intent = await createIntent(server, { return_url: returnUrl })
    assert.isNull(intent.payment_method)
    const { assertNoThirdParty, close, page } = await browse()
    try {
      const test = "promptpay"
      await page.goto(intent.next_action.url)
      assert.strictEqual(await page.locator("h1").textContent(), "Checkout")
      assert.include(await page.locator("#amount").textContent(), "THB 1,500.00")
      await step(page, test, "1-choose")
      // 4.1.1: the methods discovery gives for the intent's amount, country, currency and hosted mode.
      const offered = await page.locator("input[name=method]").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))
      assert.deepStrictEqual(offered, ["th_promptpay", "th_bank_transfer", "th_online_banking"])
      await page.getByLabel("PromptPay QR").check()
      await page.getByRole("button", { name: "Continue" }).click()
      await step(page, test, "2-details")
      await page.getByLabel(/Full name/).fill("Somchai Jaidee")
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.locator("#qr").waitFor()
      await step(page, test, "3-qr")
      // The QR image decodes to the intent's PromptPay payload, which an independent parser reads.
      const pixels = await page.locator("#qr").evaluate((img: HTMLImageElement) => {
        const canvas = document.createElement("canvas")
        canvas.width = img.naturalWidth
        canvas.height = img.naturalHeight
        const ctx = canvas.getContext("2d")!
        ctx.drawImage(img, 0, 0)
        return { data: Array.from(ctx.getImageData(0, 0, canvas.width, canvas.height).data), width: canvas.width, height: canvas.height }
      })
      const decoded = jsQR(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height)
      assert.isNotNull(decoded)
      // Strict: the CRC is checked before the payload is read.
      const payload = parse(decoded!.data, true)
      assert.isNotNull(payload, decoded!.data)
      assert.strictEqual(payload!.getTagValue("29", "00"), "A000000677010111")
      assert.strictEqual(payload!.getTagValue("54"), "1500.00")
      assert.strictEqual(payload!.getTagValue("53"), "764")
      // The choice is frozen on the intent: the merchant sees it.
      const frozen = await getIntent(server, intent.id)
      assert.strictEqual(frozen.payment_method, "th_promptpay")
      assert.strictEqual(frozen.next_action.type, "redirect_to_url")
      await page.getByRole("button", { name: "Simulate: QR code scanned and paid" }).click()
      await page.waitForURL((url) => url.href === returnUrl, { timeout: 20_000 })
      assert.strictEqual(page.url(), returnUrl)
      await shot(page, test, "4-returned")
      assert.strictEqual((await getIntent(server, intent.id)).status, "succeeded")
      assertNoThirdParty()
    } finally {
      await close()
    }
  }, 60_000)

  it("4.1.4 bank transfer: fields checked with the API's rules and messages, the slip uploaded, return_url exactly as given", async () => {
    const intent = await createIntent(server, { return_url: returnUrl })
    const { assertNoThirdParty, close, page } = await browse()
    try {
      const test = "bank-transfer"
      await page.goto(intent.next_action.url)
      await page.getByLabel("Bank transfer").check()
      await page.getByRole("button", { name: "Continue" }).click()
      await step(page, test, "1-details")
      // The bank choices are discovery's; bad entries get the API's own messages.
      const banks = await page.locator("select[name=bank] option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value))
      assert.includeMembers(banks, ["BBL", "KBANK", "SCB"])
      await page.getByLabel(/^Full name \(/).fill("Somchai Jaidee")
      await page.getByLabel(/Your bank account number/).fill("12ab")
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.locator("#error-summary").waitFor()
      await step(page, test, "2-errors")
      // Focus moves to the summary, which names each problem; each field says its own.
      assert.strictEqual(await page.evaluate(() => document.activeElement?.id), "error-summary")
      assert.include(await page.locator("#field-account_number-error").textContent(), "payment_method_options.account_number must be 6 to 20 digits")
      assert.strictEqual(await page.locator("#field-account_number").getAttribute("aria-invalid"), "true")
      await page.getByLabel(/Your bank account number/).fill("0123456789")
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.locator("#error-summary").waitFor()
      // The route's required fields, as a merchant-mode create answers them (7: 400 validation_failed).
      const summary = await page.locator("#error-summary").textContent()
      assert.include(summary, "payment_method_options.account_name is required by th_bank_transfer")
      assert.include(summary, "payment_method_options.name_th is required by th_bank_transfer")
      await page.getByLabel(/Name on your bank account/).fill("Somchai Jaidee")
      await page.getByLabel(/Full name in Thai/).fill("สมชาย ใจดี")
      await page.getByLabel(/Your bank/, { exact: false }).first().isVisible()
      await page.locator("select[name=bank]").selectOption("KBANK")
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.locator("#reference").waitFor()
      await step(page, test, "3-instructions")
      assert.strictEqual(await page.locator("#account-number").textContent(), "0471234567")
      const timer = await page.locator("#timer").textContent()
      assert.match(timer ?? "", /^1[45]:[0-5][0-9]$/)
      await page.getByLabel(/Transfer slip/).setInputFiles({
        name: "slip.png",
        mimeType: "image/png",
        buffer: Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC", "base64")
      })
      await page.getByRole("button", { name: "Upload slip" }).click()
      await page.waitForURL((url) => url.href === returnUrl, { timeout: 20_000 })
      assert.strictEqual(page.url(), returnUrl)
      const paid = await getIntent(server, intent.id)
      assert.strictEqual(paid.status, "succeeded")
      assert.strictEqual(paid.receipt.status, "accepted")
      assertNoThirdParty()
    } finally {
      await close()
    }
  }, 60_000)

  for (const answer of ["approved", "declined"] as const) {
    it(`4.1.4 online banking: the simulated bank ${answer} and the payer lands on return_url exactly as given`, async () => {
      const intent = await createIntent(server, { return_url: returnUrl })
      const { assertNoThirdParty, close, page } = await browse()
      try {
        const test = `online-banking-${answer}`
        await page.goto(intent.next_action.url)
        await page.getByLabel("Online banking").check()
        await page.getByRole("button", { name: "Continue" }).click()
        await page.locator("select[name=bank]").selectOption("SCB")
        await page.getByLabel(/Mobile phone number/).fill("+66812345678")
        await step(page, test, "1-details")
        await page.getByRole("button", { name: /^Pay/ }).click()
        await page.locator("#go-to-bank").waitFor()
        await step(page, test, "2-continue-at-bank")
        await page.locator("#go-to-bank").click()
        await page.getByRole("heading", { name: "Simulated online banking" }).waitFor()
        await step(page, test, "3-bank")
        await page.getByRole("button", { name: answer === "approved" ? "Approve the payment" : "Decline the payment" }).click()
        await page.waitForURL((url) => url.href === returnUrl, { timeout: 20_000 })
        assert.strictEqual(page.url(), returnUrl)
        const done = await waitForIntent(server, intent.id, (i) => i.status !== "requires_action")
        assert.strictEqual(done.status, answer === "approved" ? "succeeded" : "failed")
        assertNoThirdParty()
      } finally {
        await close()
      }
    }, 60_000)
  }

  it("Thai on a 360 px screen: chosen from Accept-Language, switchable, no sideways scrolling; the simulated transfer completes it", async () => {
    const intent = await createIntent(server, { return_url: returnUrl, payment_method: "th_bank_transfer" })
    const { assertNoThirdParty, close, page } = await browse({ viewport: { width: 360, height: 740 }, locale: "th-TH" })
    try {
      const test = "thai-360"
      await page.goto(intent.next_action.url)
      assert.strictEqual(await page.locator("html").getAttribute("lang"), "th")
      // 4.1.2: a method given at create goes straight on, no method list.
      assert.strictEqual(await page.locator("input[name=method][type=radio]").count(), 0)
      assert.strictEqual(await page.locator("h1").textContent(), "โอนเงินผ่านธนาคาร")
      await step(page, test, "1-details")
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
      assert.isTrue(await fits(), "no horizontal scrolling at 360 px")
      await page.getByLabel(/^ชื่อ-นามสกุล \(/).fill("สมชาย ใจดี")
      await page.getByLabel(/ชื่อบัญชีธนาคารของคุณ/).fill("Somchai Jaidee")
      await page.getByLabel(/ชื่อ-นามสกุลภาษาไทย/).fill("สมชาย ใจดี")
      await page.locator("select[name=bank]").selectOption("SCB")
      // Keyboard only: the Pay button is reached and pressed without a pointer.
      await page.locator("select[name=bank]").focus()
      let reached = false
      for (let i = 0; i < 10 && !reached; i++) {
        await page.keyboard.press("Tab")
        reached = await page.evaluate(() => document.activeElement?.tagName === "BUTTON")
      }
      assert.isTrue(reached, "the Pay button is reachable with Tab")
      await page.keyboard.press("Enter")
      await page.locator("#reference").waitFor()
      assert.strictEqual(await page.locator("h1").textContent(), "โอนเงินเข้าบัญชีนี้")
      assert.include(await page.locator("#amount").textContent(), "THB 1,500.00")
      assert.isTrue(await fits(), "no horizontal scrolling at 360 px")
      await step(page, test, "2-instructions")
      // The switch keeps the link and changes the language.
      await page.getByRole("link", { name: "English" }).click()
      assert.strictEqual(await page.locator("html").getAttribute("lang"), "en")
      assert.strictEqual(await page.locator("h1").textContent(), "Transfer to this account")
      await page.getByRole("link", { name: "ไทย" }).click()
      await step(page, test, "3-switched-back")
      await page.getByRole("button", { name: "จำลอง: โอนเงินแล้ว (อัปโหลดสลิปตัวอย่าง)" }).click()
      await page.waitForURL((url) => url.href === returnUrl, { timeout: 20_000 })
      assert.strictEqual(page.url(), returnUrl)
      assertNoThirdParty()
    } finally {
      await close()
    }
  }, 60_000)

  it(
    "2.3 a tampered, an expired and a foreign link are refused with nothing of the intent, a rotated key's link still opens, a terminal intent shows its final page",
    async () => {
      const intent = await createIntent(server, { amount: "150099", merchant_reference: "order-secret-77" })
      const url = new URL(intent.next_action.url)
      const { close, page } = await browse()
      try {
        const test = "refused"
        const nothingOfTheIntent = async () => {
          const text = await page.locator("body").innerText()
          for (const secret of ["1,500.99", "150099", intent.id, "order-secret-77", "Demo"]) assert.notInclude(text, secret)
          assert.notInclude(await page.content(), "    at ")
          assert.strictEqual(await page.locator("form").count(), 0)
        }
        const tampered = new URL(url)
        const sig = tampered.searchParams.get("signature")!
        tampered.searchParams.set("signature", (sig[0] === "A" ? "B" : "A") + sig.slice(1))
        let res = await page.goto(tampered.href)
        assert.strictEqual(res?.status(), 403)
        assert.strictEqual(await page.locator("h1").textContent(), "This payment link is not valid")
        await nothingOfTheIntent()
        await step(page, test, "1-tampered")
        // A later expiry with the old signature.
        const extended = new URL(url)
        extended.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 60_000))
        res = await page.goto(extended.href)
        assert.strictEqual(res?.status(), 403)
        await nothingOfTheIntent()
        // A genuine signature for an expiry that has passed.
        const signer = HostedCheckout.make(server.options)
        res = await page.goto(signer.urlFor(intent.id, Date.now() - 2 * 60 * 60 * 1000).url)
        assert.strictEqual(res?.status(), 410)
        assert.strictEqual(await page.locator("h1").textContent(), "This payment link has expired")
        await nothingOfTheIntent()
        await step(page, test, "2-expired")
        // 2.3 after a key rotation, a link the previous key signed still opens the page until it expires.
        const beforeRotation = HostedCheckout.make({ ...server.options, secret: "hosted-test-secret-before-rotation" })
        res = await page.goto(beforeRotation.urlFor(intent.id, Date.now()).url)
        assert.strictEqual(res?.status(), 200)
        assert.strictEqual(await page.locator("h1").textContent(), "Checkout")
        // Another intent's signature on this id.
        const other = await createIntent(server, {})
        const foreign = new URL(other.next_action.url)
        foreign.pathname = url.pathname
        res = await page.goto(foreign.href)
        assert.strictEqual(res?.status(), 403)
        await nothingOfTheIntent()
        // Terminal without return_url: the final page, no form.
        const declined = await createIntent(server, { amount: "40001" })
        await page.goto(declined.next_action.url)
        await page.getByLabel("PromptPay QR").check()
        await page.getByRole("button", { name: "Continue" }).click()
        await page.getByRole("button", { name: /^Pay/ }).click()
        await page.locator("#outcome").waitFor()
        assert.strictEqual(await page.locator("#outcome").textContent(), "Payment not completed")
        assert.strictEqual(await page.locator("form").count(), 0)
        await step(page, test, "3-final")
        await page.goto(declined.next_action.url)
        assert.strictEqual(await page.locator("#outcome").textContent(), "Payment not completed")
        assert.strictEqual((await getIntent(server, declined.id)).status, "failed")
      } finally {
        await close()
      }
    },
    60_000
  )

  it("4.1.4 a terminal intent's link goes to return_url exactly as given, every time it is opened", async () => {
    const intent = await createIntent(server, { amount: "40001", return_url: returnUrl }, keys.demoTest)
    const { close, page } = await browse()
    try {
      await page.goto(intent.next_action.url)
      await page.getByLabel("PromptPay QR").check()
      await page.getByRole("button", { name: "Continue" }).click()
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.waitForURL((url) => url.href === returnUrl)
      await page.goto(intent.next_action.url)
      assert.strictEqual(page.url(), returnUrl)
    } finally {
      await close()
    }
  }, 60_000)

  it("mounted under a prefix, with the host's merchant name and colours: every link, form, poll and the simulated bank go through the prefix", async () => {
    const mounted = await startMounted("/shop/pay", {
      appearance: { merchantName: "Siam Books", accentColor: "#8a1538", backgroundColor: "#fbf7f2" }
    })
    const { close, page } = await browse()
    const requests = recordRequests(page.context())
    try {
      const test = "mounted-branded"
      const intent = await createIntent(mounted, { return_url: returnUrl })
      assert.isTrue(intent.next_action.url.startsWith(`${mounted.url}/checkout/${intent.id}?`))
      await page.goto(intent.next_action.url)
      assert.strictEqual(await page.locator(".merchant").textContent(), "Siam Books")
      const colours = await page.locator("button[type=submit]").evaluate((b) => {
        const style = getComputedStyle(b)
        return { background: style.backgroundColor, text: style.color, page: getComputedStyle(document.body).backgroundColor }
      })
      assert.deepStrictEqual(colours, { background: "rgb(138, 21, 56)", text: "rgb(255, 255, 255)", page: "rgb(251, 247, 242)" })
      await step(page, test, "1-choose")
      await page.getByLabel("Online banking").check()
      await page.getByRole("button", { name: "Continue" }).click()
      await page.locator("select[name=bank]").selectOption("KBANK")
      await page.getByLabel(/Mobile phone number/).fill("+66812345678")
      await page.getByRole("button", { name: /^Pay/ }).click()
      await page.locator("#go-to-bank").click()
      await page.getByRole("heading", { name: "Simulated online banking" }).waitFor()
      await step(page, test, "2-bank")
      await page.getByRole("button", { name: "Approve the payment" }).click()
      await page.waitForURL((url) => url.href === returnUrl, { timeout: 20_000 })
      const ours = requests.filter((url) => url.startsWith("http://127.0.0.1:") && !url.startsWith(returnUrl))
      assert.isAbove(ours.length, 5)
      for (const url of ours) assert.isTrue(url.startsWith(`${mounted.url}/`), `outside the mount: ${url}`)
      assert.strictEqual((await waitForIntent(mounted, intent.id, (i) => i.status !== "requires_action")).status, "succeeded")
    } finally {
      await close()
      await mounted.close()
    }
  }, 60_000)
})
