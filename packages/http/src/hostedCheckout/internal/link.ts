/**
 * The hosted checkout's link and form security: a request's signed link (id, expiry,
 * signature, language), its verification (403 forged, 410 expired, 404 unknown: never a word
 * of the intent), and the browser nonce cookie the form tokens are bound to (CSRF).
 */
import type { HttpServerRequest } from "@effect/platform"
import { HostedCheckout, HostedPayment, Ids } from "@tender/core"
import { Clock, Data, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { Lang } from "../Messages.js"
import { negotiate } from "../Messages.js"

/** The browser nonce the form tokens are bound to (`HostedCheckout.formToken`). */
export const cookieName = "tender_checkout"

/** The link as the request carries it. */
export interface Link {
  readonly id: string
  readonly expires: number
  readonly signature: string
  readonly query: URLSearchParams
  readonly lang: Lang
}

export const queryOf = (request: HttpServerRequest.HttpServerRequest) => {
  try {
    return new URL(request.url, "http://localhost").searchParams
  } catch {
    return new URLSearchParams()
  }
}

export const linkOf = (id: string, request: HttpServerRequest.HttpServerRequest): Link => {
  const query = queryOf(request)
  const expires = query.get("expires") ?? ""
  return {
    id,
    // Only digits are a time: `1e13` or ` 5` would sign differently from what they parse to.
    expires: /^[0-9]{1,16}$/.test(expires) ? Number(expires) : NaN,
    signature: query.get("signature") ?? "",
    query,
    lang: negotiate(query.get("lang"), request.headers["accept-language"])
  }
}

/** A request the page refuses, as the page that says why. */
export class Refused extends Data.TaggedError("Refused")<{
  readonly kind: "badLink" | "expiredLink" | "staleForm" | "notFound"
  readonly status: number
}> {}

export const refused = (kind: Refused["kind"], status: number) => new Refused({ kind, status })

/**
 * The intent of a verified link. A malformed id, a forged or tampered signature, a link for
 * another intent: 403 "not valid"; a genuine link past its expiry: 410. Neither says anything
 * of the intent, not even whether it exists.
 */
export const verify = (link: Link) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    if (!Ids.isWellFormed(Ids.prefixes.paymentIntent, link.id)) return yield* Effect.fail(refused("badLink", 404))
    const now = yield* Clock.currentTimeMillis
    switch (hosted.check(link.id, link.expires, link.signature, now)) {
      case "invalid":
        return yield* Effect.fail(refused("badLink", 403))
      case "expired":
        return yield* Effect.fail(refused("expiredLink", 410))
      case "valid":
        break
    }
    const found = yield* HostedPayment.load(link.id)
    if (Option.isNone(found)) return yield* Effect.fail(refused("badLink", 404))
    return found.value
  })

export const nonceOf = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[cookieName]
  return value !== undefined && /^[A-Za-z0-9_-]{22,64}$/.test(value) ? value : undefined
}

/** The form token must match the link and the browser's nonce cookie (SameSite=Strict): else 403. */
export const checkForm = (link: Link, request: HttpServerRequest.HttpServerRequest, scope = link.id, expires = link.expires) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    const nonce = nonceOf(request)
    const token = link.query.get("token") ?? ""
    if (nonce === undefined || !hosted.checkFormToken(scope, expires, nonce, token)) {
      return yield* Effect.fail(refused("staleForm", 403))
    }
  })

/**
 * The cookie's Path: where the API is mounted as the browser sees it, the public base URL's
 * path (`Mount.fromPublicUrl` makes that the mount's prefix; behind a proxy that strips the
 * path the prefix is "" but the browser still sees the public path), so the host's other
 * pages never receive the nonce.
 */
export const cookiePath = (baseUrl: string) => {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, "") + "/"
  } catch {
    return "/"
  }
}

/** The nonce to bind forms to, and the cookie that sets it when the browser has none (`Secure` on an https public URL). */
export const browserNonce = (request: HttpServerRequest.HttpServerRequest, baseUrl: string) => {
  const existing = nonceOf(request)
  if (existing !== undefined) return { nonce: existing, headers: {} }
  const nonce = randomBytes(24).toString("base64url")
  const secure = baseUrl.startsWith("https:") ? "; Secure" : ""
  return {
    nonce,
    headers: { "set-cookie": `${cookieName}=${nonce}; Path=${cookiePath(baseUrl)}; HttpOnly; SameSite=Strict${secure}` }
  }
}
