/**
 * The hosted page before the payment: the method list discovery offers and the payer's
 * fields for the chosen method.
 */
import type { Discovery } from "@tender/core"
import type { Page } from "../Html.js"
import { formatAmount, Html, html } from "../Html.js"
import type { Lang } from "../Messages.js"
import { fieldLabels, messages } from "../Messages.js"
import { type Context, frame, summary } from "./frame.js"

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
        html`<label class="option" for="method-${method.code}"><input type="radio" name="method" id="method-${method.code}" value="${method.code}"${new Html(
          i === 0 ? " checked" : ""
        )}> <span>${methodLabel(method, c.lang)}</span></label>`
      )
    }
</fieldset>
<button type="submit">${m.continue}</button>
</form>`
  )
}

/** A Map: a method code comes from a host's route table, and must never find Object's own members. */
const thaiMethodLabels = new Map([
  ["th_promptpay", "พร้อมเพย์ คิวอาร์"],
  ["th_bank_transfer", "โอนเงินผ่านธนาคาร"],
  ["th_online_banking", "ธนาคารออนไลน์"]
])

const methodLabel = (method: Pick<Discovery.DiscoveredMethod, "code" | "label">, lang: Lang) =>
  lang === "th" ? thaiMethodLabels.get(method.code) ?? method.label : method.label

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
        method.options.banks.map((b) => html`<option value="${b.code}"${new Html(state.values[field] === b.code ? " selected" : "")}>${b.label}</option>`)
      }</select>${errorText}</div>`
    }
    const input = inputFor(field)
    return html`<div class="field">${label}<input id="${id}" name="${field}" type="${input.type}" autocomplete="${input.autocomplete}"${new Html(
      input.inputmode === undefined ? "" : ` inputmode="${input.inputmode}"`
    )}${new Html(field === "name_th" ? " lang=\"th\"" : "")} value="${state.values[field] ?? ""}"${new Html(req + described)}>${errorText}</div>`
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
