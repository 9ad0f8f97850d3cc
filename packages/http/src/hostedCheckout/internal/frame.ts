/**
 * What every hosted page view shares: the context a view of an intent gets (its URLs, the
 * merchant, the appearance), the frame around a view, the amount summary, the block that
 * follows the intent (status and countdown, with its script) and the simulated payer's form.
 */
import type { HostedCheckout, PaymentIntent, SimulatorPayer } from "@tender/core"
import type { Page } from "../Html.js"
import { formatAmount, Html, html } from "../Html.js"
import type { Lang } from "../Messages.js"
import { messages } from "../Messages.js"

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
export const followScript = `(function(){
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

export const summary = (c: Context) => {
  const m = messages(c.lang)
  return html`<div class="card"><p class="label">${m.amount}</p><p class="amount" id="amount">${
    formatAmount(c.intent.amount, c.intent.currency, c.lang)
  }</p></div>`
}

export const frame = (c: Context, title: string, body: Html, extra: Partial<Page> = {}): Page => ({
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
export const follow = (c: Context, text: string, expiresAt: number | undefined, now: number) => {
  const m = messages(c.lang)
  return html`<div id="follow" data-status-url="${c.urls.status}" data-version="${c.intent.version}" data-expires-at="${expiresAt ?? ""}">
<p role="status" id="status-text">${text}</p>
${
    expiresAt === undefined ?
      "" :
      html`<p>${m.expiresIn} <span class="timer" id="timer" role="timer" data-expired="${m.expired}">${
        timeLeft(expiresAt, now)
      }</span> <span class="hint">(<time datetime="${new Date(expiresAt).toISOString()}">${
        new Date(expiresAt).toISOString().slice(11, 16)
      } UTC</time>)</span></p>`
  }
</div>`
}

export const simulateForm = (c: Context) => {
  if (c.simulate.length === 0) return ""
  const m = messages(c.lang)
  return html`<section class="test" aria-labelledby="simulate-title"><h2 id="simulate-title">${m.simulateTitle}</h2>${
    c.simulate.map((action) =>
      html`<form method="post" action="${
        c.urls.action("/simulate")
      }"><input type="hidden" name="action" value="${action}"><button type="submit" class="secondary" data-action="${action}">${m[action]}</button></form>`
    )
  }</section>`
}
