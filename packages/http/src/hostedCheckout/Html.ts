/**
 * The hosted page's HTML frame: escaping, the layout every page shares (landmarks, language
 * switch, the merchant's name and colours), the one inline style and script each carrying the
 * response's nonce, and the strict Content-Security-Policy that names it. Nothing is loaded
 * from another origin: no fonts, no scripts, no images but our own `data:` QR code.
 *
 * @since 0.1.0
 */
import { HttpServerResponse } from "@effect/platform"
import type { HostedCheckout } from "@tender/core"
import { randomBytes } from "node:crypto"
import type { Lang } from "./Messages.js"
import { langs, locale, messages } from "./Messages.js"

/** Escape text for HTML content and double-quoted attributes. @since 0.1.0 */
export const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** A tagged template whose `${}` values are escaped unless already `Html`. @since 0.1.0 */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}

/** @since 0.1.0 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), ""))

const render = (v: unknown): string =>
  v instanceof Html
    ? v.value
    : Array.isArray(v)
    ? v.map(render).join("")
    : v === undefined || v === null || v === false
    ? ""
    : escape(String(v))

/** A fresh nonce per response (CSP 3: unguessable, never reused). @since 0.1.0 */
export const nonce = () => randomBytes(18).toString("base64")

/**
 * The amount in minor units, in the currency's own decimals (THB: 2), grouped for the
 * language; integer arithmetic only (D4). A currency `Intl` does not know (a token symbol) is
 * shown in minor units with its code.
 *
 * @since 0.1.0
 */
export const formatAmount = (amount: string, currency: string, lang: Lang): string => {
  let digits: number
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return `${amount} ${currency}`
  }
  const value = BigInt(amount)
  const scale = 10n ** BigInt(digits)
  const major = new Intl.NumberFormat(locale(lang), { useGrouping: true }).format(value / scale)
  const minor = digits === 0 ? "" : "." + (value % scale).toString().padStart(digits, "0")
  return `${currency} ${major}${minor}`
}

const hex = /^#[0-9a-fA-F]{6}$/

/** WCAG relative luminance of `#rrggbb`. */
const luminance = (color: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number]
  return (x + 0.05) / (y + 0.05)
}

/**
 * The page's colours from the host's appearance: a colour that is not `#rrggbb` is ignored (it
 * goes into a style sheet), and text on the accent is black or white, whichever contrasts more.
 *
 * @since 0.1.0
 */
export const palette = (appearance: HostedCheckout.Appearance) => {
  const accent = appearance.accentColor !== undefined && hex.test(appearance.accentColor) ? appearance.accentColor : "#0b57d0"
  const background = appearance.backgroundColor !== undefined && hex.test(appearance.backgroundColor)
    ? appearance.backgroundColor
    : "#f6f7f9"
  const onAccent = contrast(accent, "#ffffff") >= contrast(accent, "#111111") ? "#ffffff" : "#111111"
  return { accent, background, onAccent }
}

const styles = (p: ReturnType<typeof palette>) => `
:root{--accent:${p.accent};--on-accent:${p.onAccent};--bg:${p.background};--text:#111;--muted:#444;--border:#6b6b6b;--error:#b3261e}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai","Noto Sans",sans-serif}
header,main,footer{max-width:32rem;margin:0 auto;padding:0 1rem}
header{display:flex;justify-content:space-between;align-items:center;gap:.5rem;flex-wrap:wrap;padding-top:1rem}
.merchant{font-weight:700;margin:0;font-size:1.05rem}
nav ul{list-style:none;display:flex;gap:.25rem;margin:0;padding:0}
nav a{display:inline-block;padding:.5rem .75rem;min-height:44px;color:var(--text)}
nav a[aria-current]{font-weight:700;text-decoration:none;border-bottom:3px solid var(--text)}
.card{background:#fff;border:1px solid #d0d0d0;border-radius:12px;padding:1.25rem;margin:1rem 0}
h1{font-size:1.4rem;margin:.25rem 0 1rem}
h2{font-size:1.1rem;margin:1.25rem 0 .5rem}
.amount{font-size:1.75rem;font-weight:700;margin:0}
.label{color:var(--muted);margin:0}
fieldset{border:0;padding:0;margin:0 0 1rem}
legend{font-weight:700;margin-bottom:.5rem;padding:0}
.option{display:flex;align-items:center;gap:.75rem;border:1px solid var(--border);border-radius:8px;padding:.75rem;margin:.5rem 0;min-height:48px}
.option input{width:1.25rem;height:1.25rem;margin:0}
label{font-weight:600;display:block}
.field{margin:0 0 1rem}
input[type=text],input[type=tel],select{width:100%;font:inherit;padding:.65rem;border:1px solid var(--border);border-radius:8px;background:#fff;color:var(--text);min-height:44px}
input[type=file]{font:inherit;max-width:100%}
input[aria-invalid=true],select[aria-invalid=true]{border:2px solid var(--error)}
.hint{color:var(--muted);font-weight:400}
.error{color:var(--error);margin:.25rem 0 0}
.error::before{content:"\\26A0\\FE0E  "}
.alert{border:2px solid var(--error);border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
.alert h2{margin:0 0 .25rem}
button,.button{display:inline-block;width:100%;font:inherit;font-weight:700;text-align:center;text-decoration:none;padding:.8rem 1rem;min-height:48px;border-radius:8px;border:2px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer;margin:.25rem 0}
button.secondary{background:#fff;color:var(--text);border-color:var(--border)}
a{color:var(--text)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;box-shadow:0 0 0 5px #fff}
.qr{display:block;margin:0 auto;width:100%;max-width:260px;height:auto;image-rendering:pixelated}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.timer{font-weight:700}
.test{border:2px dashed var(--border);border-radius:8px;padding:.75rem;margin-top:1rem}
.test h2{margin-top:0}
footer{color:var(--muted);font-size:.875rem;padding-bottom:2rem}
.outcome{font-size:2rem;margin:0}
`

/** What a page is made of. @since 0.1.0 @category models */
export interface Page {
  readonly lang: Lang
  readonly title: string
  readonly merchantName: string | undefined
  readonly appearance: HostedCheckout.Appearance
  readonly body: Html
  /** The language switch's links, by language; none on pages without one. */
  readonly switchTo?: ((lang: Lang) => string) | undefined
  /** Origins a form on the page may lead to after its redirects (the merchant's return_url). */
  readonly formTargets?: ReadonlyArray<string> | undefined
  /** The page's script, run with the nonce; none for a static page. */
  readonly script?: string | undefined
  readonly testMode?: boolean | undefined
  readonly status: number
  readonly headers?: Record<string, string> | undefined
}

/**
 * The CSP of a page: nothing by default; our nonce-bearing style and script; images from us
 * and `data:` (the QR code); fetches to us (status polling); forms to us and the merchant's
 * return origin; never framed.
 *
 * @since 0.1.0
 */
export const contentSecurityPolicy = (n: string, formTargets: ReadonlyArray<string>) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${n}'`,
    `style-src 'nonce-${n}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self'${formTargets.map((o) => " " + o).join("")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; ")

/** Headers every hosted response carries: the link is a secret (no referrer, no cache), never framed. @since 0.1.0 */
export const securityHeaders = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY"
} as const

/** Render a page as the response. @since 0.1.0 */
export const respond = (page: Page): HttpServerResponse.HttpServerResponse => {
  const n = nonce()
  const m = messages(page.lang)
  const nav = page.switchTo === undefined ?
    "" :
    html`<nav aria-label="${m.languageLabel}"><ul>${
      langs.map((l) =>
        html`<li><a href="${page.switchTo!(l)}" lang="${l}" hreflang="${l}"${new Html(l === page.lang ? " aria-current=\"true\"" : "")}>${
          l === "en" ? "English" : "ไทย"
        }</a></li>`
      )
    }</ul></nav>`
  const doc = html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title}${page.merchantName === undefined ? "" : ` · ${page.merchantName}`}</title>
<style nonce="${n}">${new Html(styles(palette(page.appearance)))}</style>
</head>
<body>
<header>${page.merchantName === undefined ? "" : html`<p class="merchant">${page.merchantName}</p>`}${nav}</header>
<main id="main">
${page.body}
</main>
<footer>${page.testMode === true ? html`<p>${m.testMode}</p>` : ""}</footer>
${page.script === undefined ? "" : html`<script nonce="${n}">${new Html(page.script)}</script>`}
</body>
</html>`
  return HttpServerResponse.text(doc.value, {
    status: page.status,
    contentType: "text/html; charset=utf-8",
    headers: {
      ...securityHeaders,
      "content-security-policy": contentSecurityPolicy(n, page.formTargets ?? []),
      ...page.headers
    }
  })
}
