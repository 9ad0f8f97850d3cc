/**
 * Hosted pages that are not a view of an intent's state: a notice about the link or the
 * request (never about the intent), the simulated bank (D9), and the hop to a return_url.
 */
import type { HostedCheckout, SimulatorPayer } from "@tender/core"
import type { Page } from "../Html.js"
import { formatAmount, Html, html } from "../Html.js"
import type { Lang } from "../Messages.js"
import { messages } from "../Messages.js"
import type { Context } from "./frame.js"

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
        html`<form method="post" action="${action}"><input type="hidden" name="action" value="${a}"><button type="submit"${new Html(
          a === "bank_declined" ? " class=\"secondary\"" : ""
        )} data-action="${a}">${m[a]}</button></form>`
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
