/**
 * The hosted page's views, one per state of a hosted intent: the method list, the payer's
 * fields, the payer action (QR code, bank transfer with slip upload, or the way to the bank),
 * the wait while it is confirmed, the final page, and the pages for a link that is bad,
 * expired or stale. Views are pure: they get what to show and the URLs to show it with.
 *
 * @since 0.1.0
 */
import type { Discovery, HostedCheckout, NextAction, PaymentIntent, SimulatorPayer } from "@tender/core"
import type { Page } from "./Html.js"
import { formatAmount, html, Html } from "./Html.js"
import type { Lang } from "./Messages.js"
import { fieldLabels, messages } from "./Messages.js"

/** Where the page's links and forms go, for one verified link. @since 0.1.0 @category models */
export interface Urls {
  /** The page in another language (or with a chosen method): the link's query kept. */
  readonly page: (params?: Record<string, string>) => string
  /** A form's action (`/pay`, `/receipt`, `/simulate`), carrying the link and the form token. */
  readonly action: (suffix: string) => string
  /** The status poll. */
  readonly status: string
  /** The link's own query, for a GET form's hidden fields. */
  readonly linkFields: Record<string, string>
}

/** What every view of an intent knows. @since 0.1.0 @category models */
export interface Context {
  readonly lang: Lang
  readonly intent: PaymentIntent.PaymentIntentRecord
  readonly merchantName: string
  readonly appearance: HostedCheckout.Appearance
  readonly urls: Urls
  /** The simulated payer's actions available now (test environment only). */
  readonly simulate: ReadonlyArray<SimulatorPayer.PayerAction>
  /** Origins forms may end at: the merchant's return_url. */
  readonly formTargets: ReadonlyArray<string>
}

/** The script of a page that follows its intent: the countdown, and the status poll that reloads or leaves. */
const followScript = `(function(){
var el=document.getElementById("follow");if(!el)return;
var url=el.getAttribute("data-status-url"),version=el.getAttribute("data-version");
var end=Number(el.getAttribute("data-expires-at")||"0"),timer=document.getElementById("timer");
function two(n){return (n<10?"0":"")+n}
function tick(){if(!timer||!end)return;var left=Math.max(0,Math.floor((end-Date.now())/1000));
timer.textContent=left>0?Math.floor(left/60)+":"+two(left%60):timer.getAttribute("data-expired");}
var busy=false;
function poll(){if(busy)return;busy=true;
fetch(url,{headers:{accept:"application/json"},cache:"no-store",credentials:"same-origin"})
.then(function(r){return r.ok?r.json():null}).then(function(s){busy=false;if(!s)return;
if(s.redirect_url){window.location.replace(s.redirect_url);return}
if(String(s.version)!==version){window.location.replace(window.location.href)}})
.catch(function(){busy=false})}
tick();setInterval(tick,1000);setInterval(poll,1500);
})();`

const summary = (c: Context) => {
  const m = messages(c.lang)
  return html`<div class="card"><p class="label">${m.amount}</p><p class="amount" id="amount">${
    formatAmount(c.intent.amount, c.intent.currency, c.lang)
  }</p></div>`
}

const frame = (c: Context, title: string, body: Html, extra: Partial<Page> = {}): Page => ({
  lang: c.lang,
  title,
  merchantName: c.merchantName,
  appearance: c.appearance,
  body,
  switchTo: (lang) => c.urls.page({ lang }),
  formTargets: c.formTargets,
  testMode: c.intent.environment === "test",
  status: 200,
  ...extra
})

const timeLeft = (expiresAt: number, now: number) => {
  const left = Math.max(0, Math.floor((expiresAt - now) / 1000))
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`
}

/** The block that follows the intent: its status (announced politely) and the countdown. */
const follow = (c: Context, text: string, expiresAt: number | undefined, now: number) => {
  const m = messages(c.lang)
  return html`<div id="follow" data-status-url="${c.urls.status}" data-version="${c.intent.version}" data-expires-at="${
    expiresAt ?? ""
  }">
<p role="status" id="status-text">${text}</p>
${
    expiresAt === undefined ? "" : html`<p>${m.expiresIn} <span class="timer" id="timer" role="timer" data-expired="${m.expired}">${
      timeLeft(expiresAt, now)
    }</span> <span class="hint">(<time datetime="${new Date(expiresAt).toISOString()}">${
      new Date(expiresAt).toISOString().slice(11, 16)
    } UTC</time>)</span></p>`
  }
</div>`
}

const simulateForm = (c: Context) => {
  if (c.simulate.length === 0) return ""
  const m = messages(c.lang)
  return html`<section class="test" aria-labelledby="simulate-title"><h2 id="simulate-title">${m.simulateTitle}</h2>${
    c.simulate.map((action) =>
      html`<form method="post" action="${c.urls.action("/simulate")}"><input type="hidden" name="action" value="${action}"><button type="submit" class="secondary" data-action="${action}">${
        m[action]
      }</button></form>`
    )
  }</section>`
}

/** The list of methods discovery offers (4.1.1), as a GET form: choosing changes nothing until the payer pays. @since 0.1.0 */
export const chooseMethod = (
  c: Context,
  methods: ReadonlyArray<Discovery.DiscoveredMethod>,
  notices: ReadonlyArray<string> = []
): Page => {
  const m = messages(c.lang)
  if (methods.length === 0) {
    return frame(c, m.title, html`<h1>${m.title}</h1>${summary(c)}<p role="alert">${m.noMethods}</p>`)
  }
  // Why the payer is back here (the chosen method became unavailable): the API's own words.
  const noticeBlock = notices.length === 0 ? "" : html`<div class="alert" role="alert">${notices.map((n) => html`<p>${n}</p>`)}</div>`
  return frame(
    c,
    m.chooseMethod,
    html`<h1>${m.title}</h1>${summary(c)}${noticeBlock}
<form method="get" action="${c.urls.page()}" class="card">
${Object.entries(c.urls.linkFields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<fieldset><legend>${m.chooseMethod}</legend>
${
      methods.map((method, i) =>
        html`<label class="option" for="method-${method.code}"><input type="radio" name="method" id="method-${method.code}" value="${method.code}"${
          new Html(i === 0 ? " checked" : "")
        }> <span>${methodLabel(method, c.lang)}</span></label>`
      )
    }
</fieldset>
<button type="submit">${m.continue}</button>
</form>`
  )
}

const thaiMethodLabels: Record<string, string> = {
  th_promptpay: "พร้อมเพย์ คิวอาร์",
  th_bank_transfer: "โอนเงินผ่านธนาคาร",
  th_online_banking: "ธนาคารออนไลน์"
}

const methodLabel = (method: Pick<Discovery.DiscoveredMethod, "code" | "label">, lang: Lang) =>
  lang === "th" ? thaiMethodLabels[method.code] ?? method.label : method.label

/** The payer's entries and what the server said of them. @since 0.1.0 @category models */
export interface FormState {
  readonly values: Record<string, string>
  /** Messages by payer field (discovery's names); `_form` for those of no one field. */
  readonly errors: Record<string, ReadonlyArray<string>>
}

const inputFor = (field: string) => {
  switch (field) {
    case "customer_name":
      return { type: "text", autocomplete: "name", inputmode: undefined }
    case "customer_phone":
      return { type: "tel", autocomplete: "tel", inputmode: "tel" }
    case "account_number":
      return { type: "text", autocomplete: "off", inputmode: "numeric" }
    default:
      return { type: "text", autocomplete: "off", inputmode: undefined }
  }
}

/** The fields the chosen method's route requires (2.2 mapping), with bank choices; then Pay. @since 0.1.0 */
export const payerForm = (
  c: Context,
  method: Discovery.DiscoveredMethod,
  state: FormState,
  canChange: boolean,
  payerFields: ReadonlyArray<string>
): Page => {
  const m = messages(c.lang)
  const labels = fieldLabels[c.lang]
  const fields = payerFields.filter((f) => method.options.payer[f] !== undefined)
  const all = Object.entries(state.errors)
  const hasErrors = all.length > 0
  const errorSummary = hasErrors
    ? html`<div class="alert" role="alert" tabindex="-1" id="error-summary" aria-labelledby="error-summary-title"><h2 id="error-summary-title">${m.fieldErrorsTitle}</h2><ul>${
      all.flatMap(([field, messages]) =>
        messages.map((message) =>
          field === "_form"
            ? html`<li>${message}</li>`
            : html`<li><a href="#field-${field}">${labels[field] ?? field}: ${message}</a></li>`
        )
      )
    }</ul></div>`
    : ""
  const control = (field: string) => {
    const required = method.options.payer[field]?.required === true
    const errors = state.errors[field] ?? []
    const id = `field-${field}`
    const described = errors.length > 0 ? ` aria-describedby="${id}-error" aria-invalid="true"` : ""
    const req = required ? " required aria-required=\"true\"" : ""
    const label = html`<label for="${id}">${labels[field] ?? field} <span class="hint">(${required ? m.required : m.optional})</span></label>`
    const errorText = errors.length > 0 ? html`<p class="error" id="${id}-error">${errors.join(" ")}</p>` : ""
    if (field === "bank") {
      return html`<div class="field">${label}<select id="${id}" name="${field}"${new Html(req + described)}><option value="">${m.selectBank}</option>${
        method.options.banks.map((b) =>
          html`<option value="${b.code}"${new Html(state.values[field] === b.code ? " selected" : "")}>${b.label}</option>`
        )
      }</select>${errorText}</div>`
    }
    const input = inputFor(field)
    return html`<div class="field">${label}<input id="${id}" name="${field}" type="${input.type}" autocomplete="${input.autocomplete}"${
      new Html(input.inputmode === undefined ? "" : ` inputmode="${input.inputmode}"`)
    }${new Html(field === "name_th" ? " lang=\"th\"" : "")} value="${state.values[field] ?? ""}"${new Html(req + described)}>${errorText}</div>`
  }
  return frame(
    c,
    methodLabel(method, c.lang),
    html`<h1>${methodLabel(method, c.lang)}</h1>${summary(c)}${errorSummary}
<form method="post" action="${c.urls.action("/pay")}" class="card" novalidate>
<input type="hidden" name="method" value="${method.code}">
${fields.length > 0 ? html`<h2>${m.yourDetails}</h2>` : ""}
${fields.map(control)}
<button type="submit">${m.pay} ${formatAmount(c.intent.amount, c.intent.currency, c.lang)}</button>
</form>
${canChange ? html`<p><a href="${c.urls.page()}">${m.changeMethod}</a></p>` : ""}`,
    { status: hasErrors ? 400 : 200, script: hasErrors ? `document.getElementById("error-summary").focus();` : undefined }
  )
}

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
  switch (action.type) {
    case "display_qr_code":
      return frame(
        c,
        m.scanTitle,
        html`<h1>${m.scanTitle}</h1>${summary(c)}${noticeBlock}<div class="card">
<p>${m.scanHelp}</p>
${qrImage === undefined ? "" : html`<img class="qr" id="qr" src="${qrImage}" alt="${m.qrAlt} ${amount}" width="260" height="260">`}
${follow(c, m.waiting, expiresAt, now)}
</div>${simulateForm(c)}`,
        { script: followScript }
      )
    case "display_bank_transfer_instructions":
      return frame(
        c,
        m.transferTitle,
        html`<h1>${m.transferTitle}</h1>${summary(c)}${noticeBlock}<div class="card">
<p>${m.transferHelp}</p>
<dl>
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
        }
${follow(c, m.waiting, expiresAt, now)}
</div>${simulateForm(c)}`,
        { script: followScript }
      )
    case "redirect_to_url":
      return frame(
        c,
        m.redirectTitle,
        html`<h1>${m.redirectTitle}</h1>${summary(c)}${noticeBlock}<div class="card">
<p>${m.redirectHelp}</p>
${
          // A provider's address is followed only over http(s): never a javascript: or data: URL.
          /^https?:\/\//i.test(action.url) ? html`<a class="button" id="go-to-bank" href="${action.url}">${m.goToBank}</a>` : ""
        }
${follow(c, m.waiting, expiresAt, now)}
</div>`,
        { script: followScript }
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

/** A page about the link or the request, never about the intent: no amount, no merchant, no status. @since 0.1.0 */
export const notice = (
  lang: Lang,
  appearance: HostedCheckout.Appearance,
  kind: "badLink" | "expiredLink" | "staleForm" | "notFound" | "error",
  status: number
): Page => {
  const m = messages(lang)
  const [title, help] = kind === "badLink"
    ? [m.badLinkTitle, m.badLinkHelp]
    : kind === "expiredLink"
    ? [m.expiredLinkTitle, m.expiredLinkHelp]
    : kind === "staleForm"
    ? [m.staleFormTitle, m.staleFormHelp]
    : kind === "notFound"
    ? [m.notFoundTitle, m.badLinkHelp]
    : [m.errorTitle, m.errorHelp]
  return {
    lang,
    title,
    merchantName: undefined,
    appearance,
    body: html`<div class="card"><h1>${title}</h1><p>${help}</p></div>`,
    status
  }
}

/** The simulated bank's page (D9): approve or decline, then back to the hosted page. @since 0.1.0 */
export const bank = (
  c: Omit<Context, "urls" | "simulate">,
  bankLabel: string,
  action: string,
  actions: ReadonlyArray<SimulatorPayer.PayerAction>
): Page => {
  const m = messages(c.lang)
  return {
    lang: c.lang,
    title: m.bankPageTitle,
    merchantName: bankLabel,
    appearance: {},
    body: html`<h1>${m.bankPageTitle}</h1><div class="card"><p>${m.bankPageHelp}</p><p class="label">${m.payTo} ${c.merchantName}</p><p class="amount">${
      formatAmount(c.intent.amount, c.intent.currency, c.lang)
    }</p>${
      actions.map((a) =>
        html`<form method="post" action="${action}"><input type="hidden" name="action" value="${a}"><button type="submit"${
          new Html(a === "bank_declined" ? " class=\"secondary\"" : "")
        } data-action="${a}">${m[a]}</button></form>`
      )
    }</div>`,
    formTargets: c.formTargets,
    testMode: true,
    status: 200
  }
}

/** On the way to a return_url a redirect header cannot carry as written: the browser follows the link. @since 0.1.0 */
export const leaving = (lang: Lang, appearance: HostedCheckout.Appearance, returnUrl: string): Page => {
  const m = messages(lang)
  return {
    lang,
    title: m.returnToShop,
    merchantName: undefined,
    appearance,
    body: html`<div class="card"><h1>${m.returnToShop}</h1><p><a id="return-url" class="button" href="${returnUrl}">${m.returnToShop}</a></p></div>`,
    script: `window.location.replace(document.getElementById("return-url").href);`,
    formTargets: [],
    status: 200
  }
}
