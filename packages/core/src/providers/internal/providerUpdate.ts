/**
 * What a provider says of a payment (the one update type), its fault, and a receipt it is
 * given: the models the payment side and the top-up side of the port share; `Provider`
 * re-exports all of it.
 */
import { Data } from "effect"
import type { NextAction } from "../../paymentIntents/NextAction.js"

/**
 * Everything a provider can say about a payment, whatever asked or told it (create, confirm,
 * poll, receipt, cancel, a notification): one type, applied by one function
 * (`PaymentIntentLifecycle.applyUpdate`).
 *
 * - `Action`: the payer must act (`nextAction`: the QR code, the transfer, the redirect).
 * - `Processing`: the payer acted and the provider is settling it: ask again later.
 * - `Pending`: nothing happened yet (the payer has not paid): nothing changes.
 * - `Succeeded`: paid; with the provider's `amount` (minor units) and `currency` where it says
 *   them, and a payment that differs from its intent's is never marked succeeded (D11).
 * - `Failed`: declined or ended unpaid, with a D1 `failureCode` and its message.
 * - `Canceled`: the payment is no longer payable at the provider (the answer to a cancel).
 *
 * @since 0.1.0 @category models
 */
export type ProviderPaymentUpdate =
  | { readonly _tag: "Action"; readonly nextAction: NextAction }
  | { readonly _tag: "Processing" }
  | { readonly _tag: "Pending" }
  | {
    readonly _tag: "Succeeded"
    readonly amount?: string | null | undefined
    readonly currency?: string | null | undefined
  }
  | { readonly _tag: "Failed"; readonly failureCode: string; readonly failureMessage: string }
  | { readonly _tag: "Canceled" }

/**
 * The provider could not be reached or answered with a fault; counts against the route's health.
 * `ambiguous`: whether the provider may have acted on the request (absent: it may have;
 * `mayHaveActed`). A request that cannot have acted (a refused connection, an unknown
 * host, the adapter's own configuration, a 401 or 429) is safe to send to another route; one that
 * may have (a timeout, a reset, a 5xx) is remembered (`ProviderAttempt`).
 * @since 0.1.0 @category errors
 */
export class ProviderUnavailable extends Data.TaggedError("ProviderUnavailable")<{
  readonly provider: string
  readonly reason: string
  readonly ambiguous?: boolean | undefined
}> {}

/** `ProviderKit.mayHaveActed`: defined here, beside `ProviderUnavailable`, so its one reading of `ambiguous` sits with the field. */
export const mayHaveActed = (error: ProviderUnavailable): boolean => error.ambiguous !== false

/** A receipt (payment evidence) for the provider: a JPEG or PNG of at most 5 MiB (4.4). @since 0.1.0 @category models */
export interface ProviderReceipt {
  readonly contentType: "image/jpeg" | "image/png"
  readonly sha256: string
  readonly bytes: Uint8Array
}

/** What the provider says of a payment after create (confirm, poll, receipt): the one update type. @since 0.1.0 @category models */
export type ProviderPaymentStatus = ProviderPaymentUpdate

/** A NUL, or half of a UTF-16 pair without its other half: text no store holds alike (PostgreSQL refuses both). */
const unholdable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * A provider's answer as Tender keeps it: every string in it (deeply, through plain objects and
 * arrays) with U+0000 and unpaired surrogates replaced by U+FFFD. A provider's text (a failure
 * message, a reason, a notice's fields) is anyone's; memory would keep a NUL that PostgreSQL
 * refuses (22021), so it is made storable where it enters core (`Routing.boundedCall`,
 * `ProviderNotifications.receive`), the same on every store. The same value when nothing needs it.
 */
export const providerText = <A>(value: A): A => clean(value) as A

const clean = (value: unknown): unknown => {
  if (typeof value === "string") return value.replace(unholdable, "\uFFFD")
  if (Array.isArray(value)) {
    const items = value.map(clean)
    return items.every((item, i) => item === value[i]) ? value : items
  }
  if (value === null || typeof value !== "object") return value
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  let changed: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(value)) {
    const cleaned = clean(item)
    if (cleaned !== item) (changed ??= { ...value })[key] = cleaned
  }
  return changed ?? value
}
