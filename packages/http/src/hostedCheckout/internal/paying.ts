/**
 * The hosted page once the payer has paid or chosen: the payer action at the provider (QR
 * code, bank transfer with slip upload, the way to the bank), the wait while it is confirmed,
 * and the final page.
 */
import type { NextAction } from "@tender/core"
import type { Html, Page } from "../Html.js"
import { formatAmount, html } from "../Html.js"
import { messages } from "../Messages.js"
import { type Context, follow, followScript, frame, simulateForm, summary } from "./frame.js"

/** The payer action at the provider, with the countdown and the status poll. @since 0.1.0 */
export const payerAction = (
  c: Context,
  action: NextAction.NextAction,
  qrImage: string | undefined,
  expiresAt: number | undefined,
  now: number,
  notice: string | undefined
): Page => {
  const m = messages(c.lang)
  const amount = formatAmount(c.intent.amount, c.intent.currency, c.lang)
  const noticeBlock = notice === undefined ? "" : html`<div class="alert" role="alert">${notice}</div>`
  // Every payer action is one card: its title and help, what the payer uses, then the wait.
  const card = (title: string, help: string, body: Html | string, after: Html | string) =>
    frame(
      c,
      title,
      html`<h1>${title}</h1>${summary(c)}${noticeBlock}<div class="card">
<p>${help}</p>
${body}
${follow(c, m.waiting, expiresAt, now)}
</div>${after}`,
      { script: followScript }
    )
  switch (action.type) {
    case "display_qr_code":
      return card(
        m.scanTitle,
        m.scanHelp,
        qrImage === undefined ? "" : html`<img class="qr" id="qr" src="${qrImage}" alt="${m.qrAlt} ${amount}" width="260" height="260">`,
        simulateForm(c)
      )
    case "display_bank_transfer_instructions":
      return card(
        m.transferTitle,
        m.transferHelp,
        html`<dl>
<dt>${m.bankName}</dt><dd>${action.bank_name}</dd>
<dt>${m.accountNumber}</dt><dd id="account-number">${action.account_number}</dd>
<dt>${m.accountName}</dt><dd>${action.account_name}</dd>
<dt>${m.reference}</dt><dd id="reference">${action.reference}</dd>
<dt>${m.amount}</dt><dd>${formatAmount(action.amount, action.currency, c.lang)}</dd>
</dl>
${
          c.intent.receipt?.status === "required"
            ? html`<form method="post" action="${c.urls.action("/receipt")}" enctype="multipart/form-data">
<div class="field"><label for="slip">${m.slip}</label><input type="file" id="slip" name="file" accept="image/png,image/jpeg" required></div>
<button type="submit">${m.uploadSlip}</button>
</form>`
            : ""
        }`,
        simulateForm(c)
      )
    case "redirect_to_url":
      return card(
        m.redirectTitle,
        m.redirectHelp,
        // A provider's address is followed only over http(s): never a javascript: or data: URL.
        /^https?:\/\//i.test(action.url) ? html`<a class="button" id="go-to-bank" href="${action.url}">${m.goToBank}</a>` : "",
        ""
      )
  }
}

/** No payer action remains: the payment is being confirmed (3.1.2). @since 0.1.0 */
export const processing = (c: Context): Page => {
  const m = messages(c.lang)
  const text = c.intent.receipt?.status === "submitted" ? m.receiptReceived : m.processing
  return frame(c, m.processing, html`<h1>${m.title}</h1>${summary(c)}<div class="card">${follow(c, text, undefined, 0)}</div>`, {
    script: followScript
  })
}

/** The final page of a terminal intent without a return_url (4.1.4). @since 0.1.0 */
export const final = (c: Context): Page => {
  const m = messages(c.lang)
  const [title, help, mark] = c.intent.status === "succeeded"
    ? [m.succeeded, m.succeededHelp, "\u2713"]
    : c.intent.status === "failed"
    ? [m.failed, m.failedHelp, "\u2715"]
    : c.intent.status === "canceled"
    ? [m.canceledTitle, m.canceledHelp, "\u2715"]
    : [m.expiredTitle, m.expiredHelp, "\u231B"]
  return frame(
    c,
    title,
    html`<div class="card"><p class="outcome" aria-hidden="true">${mark}</p><h1 id="outcome">${title}</h1><p>${help}</p></div>${summary(c)}`
  )
}
