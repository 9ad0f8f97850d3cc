/**
 * The adapter kit: what every provider adapter needs besides its vendor mapping, written once
 * so each adapter keeps only that mapping (docs/provider-adapters.md, "The adapter kit").
 *
 * - `vendor(spec)`: one call to the vendor's API bounded by a timeout, its error sorted by one
 *   rule into a fault (`ProviderUnavailable`, with `ambiguous` saying whether the vendor may have
 *   acted) or a refusal (`Rejected`, mapped to Tender's failure codes); and how a create, a read
 *   and a refund answer a refusal.
 * - `failure(code)`: Tender's failure codes and their messages, one list (`failureMessages`).
 * - `idempotencyKey(operation, ids)`: the key each operation sends the vendor.
 * - `vendorInteger(amount)`: a minor-unit string as the integer a vendor's JSON takes, refusing
 *   what a JavaScript number cannot hold exactly.
 * - `createByMethod(methods, table)`: `createPayment` as one table from method to request and answer.
 * - `layers(tag, make, config)`, `accounts(schema, build)`, `configList`, `configOptional`: the
 *   layer, configuration and per-account (D13) boilerplate.
 *
 * @since 0.1.0
 */
import type { Context } from "effect"
import { Config, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import type { ConfigError } from "effect/ConfigError"
import * as failures from "./internal/providerFailures.js"
import * as updates from "./internal/providerUpdate.js"
import * as vendorCalls from "./internal/vendorCall.js"
import type {
  AccountCredentials,
  AccountSupport,
  PaymentProvider,
  ProviderMethod,
  ProviderPaymentRequest,
  ProviderPaymentResult,
  ProviderRefundStatus
} from "./Provider.js"
import { ProviderUnavailable } from "./Provider.js"

/**
 * Every failure code of Tender's own that a provider's answer maps to, each with the one message
 * it carries (D1: a provider's own codes are never exposed). The first eight are a payment's
 * declines (`failureFor` picks among them); `payment_declined` is the rest: fraud, lost or
 * blocked cards and anything unknown, never told apart to the payer. The others are a refund,
 * a payout, a receipt or a create that the provider could not take. Adapters, the simulator and
 * core name a failure by `failure(code)`, never by a literal message, so this is the one list.
 *
 * @since 0.1.0 @category constants
 */
export const failureMessages = failures.failureMessages

/** One of `failureMessages`' codes. @since 0.1.0 @category models */
export type FailureCode = failures.FailureCode

/** A failure code with its message, as a `Failed` answer or a failed notice carries it. @since 0.1.0 @category models */
export type Failure = failures.Failure

/**
 * The failure `code`, with its message from `failureMessages`: `{ _tag: "Failed", ...failure("refund_failed") }`.
 *
 * @since 0.1.0 @category constructors
 */
export const failure = failures.failure

/** A provider's own codes (and texts) for each of Tender's failure codes it tells apart. @since 0.1.0 @category models */
export type FailureCodes = failures.FailureCodes

/**
 * Tender's failure for a provider's decline: the first of `reasons` (the provider's codes, most
 * telling first; absent ones skipped) that `codes` lists, else `payment_declined`.
 *
 * @since 0.1.0 @category constructors
 */
export const failureFor = failures.failureFor

/**
 * What an adapter reads of an error its vendor's SDK threw (`VendorSpec.errorOf`): the HTTP
 * status (absent when no answer came), the vendor's own codes for a refusal (never shown, D1),
 * the name of the error's kind (never its message: it may echo request data).
 *
 * @since 0.1.0 @category models
 */
export type VendorError = vendorCalls.VendorError

/**
 * What an adapter tells the kit about its vendor: the provider code, the vendor's name, the
 * bound of one call (`defaultTimeoutMillis` unless given), its decline codes for each of
 * Tender's failure codes (`failureFor`), and how to read an error its SDK threw.
 *
 * @since 0.1.0 @category models
 */
export type VendorSpec = vendorCalls.VendorSpec

/**
 * A vendor's answer that refuses the request: not a fault of its side, so the route stays
 * healthy. It carries Tender's failure and what the SDK threw (`error`, which an adapter may
 * read further, such as the payment a Stripe error names).
 *
 * @since 0.1.0 @category errors
 */
export const Rejected = vendorCalls.Rejected
/** @since 0.1.0 @category errors */
export type Rejected = vendorCalls.Rejected

/** The default bound of one vendor call, in ms: 15 000, within the 20 s a provider call is given. @since 0.1.0 @category constants */
export const defaultTimeoutMillis = vendorCalls.defaultTimeoutMillis

/**
 * Whether an answered `status` is a fault of the vendor's side (`ProviderUnavailable`) rather
 * than a refusal of the request: any status outside 4xx, or a 401, 403, 404, 408, 409 or 429 (a wrong key
 * or account, a wrong address, no time to read the request, the same idempotency key still being
 * handled, rate limiting). No payment can pass the route while they last, so they count against
 * its health and never blame the payer.
 *
 * @since 0.1.0 @category guards
 */
export const isFaultStatus = vendorCalls.isFaultStatus

/**
 * Whether `thrown` (or an error it wraps, as `cause` or Stripe's `detail`) says the connection
 * was never made (a refused connection, an unknown host, a certificate error): nothing reached
 * the vendor, so the request may go to another route.
 *
 * @since 0.1.0 @category guards
 */
export const neverSent = vendorCalls.neverSent

/**
 * Whether the provider may have acted on the request that failed with `error`: `false` only when
 * it surely did not (the connection was never made, or it answered 401, 403, 404, 408 or 429),
 * so the request may go to another route; an error that does not say (`ambiguous` absent) may have.
 * The one reading of `ambiguous` (docs/reliability.md "Lost provider answers"), beside
 * `ProviderUnavailable`.
 *
 * @since 0.1.0 @category guards
 */
export const mayHaveActed = updates.mayHaveActed

/** A vendor's API as an adapter calls it. @since 0.1.0 @category models */
export interface Vendor {
  readonly spec: VendorSpec
  /**
   * One call, bounded by `spec.timeoutMillis` (the SDK's own retries included): a fault is
   * `ProviderUnavailable`, a refusal `Rejected` with Tender's failure for the vendor's codes.
   * `f` gets an `AbortSignal` that ends when the bound does, for a `fetch`.
   */
  readonly call: <A>(f: (signal: AbortSignal) => Promise<A>) => Effect.Effect<A, ProviderUnavailable | Rejected>
  /** A call whose refusal is a fault too: a read of a payment Tender holds, which the vendor refusing is not the payer's doing. */
  readonly read: <A>(f: (signal: AbortSignal) => Promise<A>) => Effect.Effect<A, ProviderUnavailable>
  /** A create's refusal as its `Failed` result, with the vendor's payment id where the refusal names one. */
  readonly created: <E>(
    effect: Effect.Effect<ProviderPaymentResult, E | Rejected>,
    idOf?: (error: unknown) => string | null
  ) => Effect.Effect<ProviderPaymentResult, Exclude<E, Rejected>>
  /** A refund's refusal as `refund_failed` (the amount becomes refundable again, D10). */
  readonly refunded: <E>(effect: Effect.Effect<ProviderRefundStatus, E | Rejected>) => Effect.Effect<ProviderRefundStatus, Exclude<E, Rejected>>
  /** A refusal as a fault (`ProviderUnavailable`, the vendor did not act): for calls whose refusal is no answer about the payment. */
  readonly faultOnRefusal: <A, E>(effect: Effect.Effect<A, E | Rejected>) => Effect.Effect<A, Exclude<E, Rejected> | ProviderUnavailable>
  /** `vendorInteger`, refused as `Rejected` (`provider_rejected`) before anything is sent. */
  readonly integer: (amount: string) => Effect.Effect<number, Rejected>
  /** `ProviderUnavailable` of this vendor: `ambiguous` false, as nothing was sent. */
  readonly unavailable: (reason: string) => ProviderUnavailable
}

/**
 * The vendor of an adapter: `spec` names it, bounds its calls, maps its decline codes to
 * Tender's (`declines`) and reads its SDK's errors (`errorOf`). The rule: no answer, a 5xx and
 * a 401, 403, 404, 408, 409 or 429 are faults; any other 4xx is a refusal, `failureFor(declines,
 * codes)`, or `provider_rejected` when the vendor gave no code.
 *
 * @since 0.1.0 @category constructors
 */
export const vendor = (spec: VendorSpec): Vendor => {
  const call = vendorCalls.vendorCall(spec)
  const unavailable = (reason: string) => new ProviderUnavailable({ provider: spec.provider, reason, ambiguous: false })
  const faultOnRefusal = <A, E>(effect: Effect.Effect<A, E | Rejected>) =>
    Effect.catchIf(effect, (e): e is Rejected => e instanceof Rejected, () => Effect.fail(unavailable(`${spec.name} refused the request`))) as Effect.Effect<
      A,
      Exclude<E, Rejected> | ProviderUnavailable
    >
  return {
    spec,
    call,
    read: (f) => faultOnRefusal(call(f)),
    created: (effect, idOf) =>
      Effect.catchIf(effect, (e): e is Rejected => e instanceof Rejected, (e) =>
        Effect.succeed<ProviderPaymentResult>({
          _tag: "Failed",
          providerPaymentId: idOf?.(e.error) ?? null,
          failureCode: e.failureCode,
          failureMessage: e.failureMessage
        })) as never,
    refunded: (effect) =>
      Effect.catchIf(
        effect,
        (e): e is Rejected => e instanceof Rejected,
        () => Effect.succeed<ProviderRefundStatus>({ _tag: "Failed", ...failure("refund_failed") })
      ) as never,
    faultOnRefusal,
    integer: (amount) => Either.match(vendorInteger(amount), { onLeft: (e) => Effect.fail(e), onRight: Effect.succeed }),
    unavailable
  }
}

/**
 * A minor-unit amount (an integer string) as the integer a vendor's JSON takes. `Number("…")`
 * rounds silently above 2^53 (an 18-decimal token amount passes it): anything a JavaScript
 * number cannot hold exactly, and anything not a non-negative integer, is refused as `Rejected`
 * (`provider_rejected`) before the vendor is called.
 *
 * @since 0.1.0 @category constructors
 */
export const vendorInteger = (amount: string): Either.Either<number, Rejected> => {
  if (!/^(0|[1-9][0-9]*)$/.test(amount) || BigInt(amount) > BigInt(Number.MAX_SAFE_INTEGER)) {
    return Either.left(
      new Rejected({ ...failure("provider_rejected"), error: new RangeError(`the amount ${amount} is not an integer of at most 2^53 - 1 minor units`) })
    )
  }
  return Either.right(Number(amount))
}

/** The operations a vendor is sent an idempotency key with. @since 0.1.0 @category models */
export type KeyedOperation = "create" | "cancel" | "refund" | "payout" | "topup"

/**
 * The idempotency key of an operation, so a task run twice (a crash, a timeout) acts once at the
 * vendor: a payment's create (and its confirm, status, receipt) is keyed by our intent id, its
 * cancel by `{id}/cancel` (a cancel is another request than the create), a refund by our refund
 * id, a payout by our payout id, a top-up by our top-up id.
 *
 * @since 0.1.0 @category constructors
 */
export function idempotencyKey(operation: "create" | "cancel", payment: { readonly paymentIntentId: string }): string
export function idempotencyKey(operation: "refund", refund: { readonly refundId: string }): string
export function idempotencyKey(operation: "payout", payout: { readonly payoutIntentId: string }): string
export function idempotencyKey(operation: "topup", topup: { readonly topupIntentId: string }): string
export function idempotencyKey(operation: KeyedOperation, ids: Readonly<Record<string, string>>): string {
  switch (operation) {
    case "create":
      return ids["paymentIntentId"]!
    case "cancel":
      return `${ids["paymentIntentId"]}/cancel`
    case "refund":
      return ids["refundId"]!
    case "payout":
      return ids["payoutIntentId"]!
    case "topup":
      return ids["topupIntentId"]!
  }
}

/** How a method's payment is created: the vendor's request from Tender's, and its answer in Tender's words. @since 0.1.0 @category models */
export type CreateByMethod = (request: ProviderPaymentRequest) => Effect.Effect<ProviderPaymentResult, ProviderUnavailable>

/**
 * `createPayment` from one table, keyed by each method's `providerMethod`: the vendor mapping of
 * an adapter, not an if-chain. A declared method without an entry is a configuration error
 * (thrown here); a request for a method not in the table is `ProviderUnavailable` (routing only
 * sends declared methods, so it is never the payer's).
 *
 * @since 0.1.0 @category constructors
 */
export const createByMethod = (
  provider: string,
  methods: ReadonlyArray<ProviderMethod>,
  table: Readonly<Record<string, CreateByMethod>>
): PaymentProvider["createPayment"] => {
  const missing = methods.filter((m) => !Object.hasOwn(table, m.providerMethod)).map((m) => m.providerMethod)
  if (missing.length > 0) throw new Error(`${provider} declares ${missing.join(", ")} but has no create for it`)
  return (request) =>
    Object.hasOwn(table, request.providerMethod)
      ? table[request.providerMethod]!(request)
      : Effect.fail(new ProviderUnavailable({ provider, reason: `${provider} does not serve ${request.providerMethod}`, ambiguous: false }))
}

/**
 * An adapter's layers: `layer(options)`, and `layerConfig` from `config` (an adapter's
 * environment variables). `make` may throw on options it cannot use (a configuration error).
 *
 * @since 0.1.0 @category layers
 */
export const layers = <Options, Id>(
  tag: Context.Tag<Id, PaymentProvider>,
  make: (options: Options) => PaymentProvider,
  config: Config.Config<Options>
): {
  readonly layer: (options: Options) => Layer.Layer<Id>
  readonly layerConfig: Layer.Layer<Id, ConfigError>
} => ({
  layer: (options) => Layer.sync(tag, () => make(options)),
  layerConfig: Layer.effect(tag, Effect.map(config, make))
})

/** A secret configuration value that may list several, comma-separated (a test and a live key, keys during a rotation). @since 0.1.0 @category config */
export const configList = (name: string): Config.Config<ReadonlyArray<string>> =>
  Config.map(Config.redacted(name), (value) => Redacted.value(value).split(",").map((s) => s.trim()))

/** An optional configuration value: `undefined` when unset. @since 0.1.0 @category config */
export const configOptional = <A>(config: Config.Config<A>): Config.Config<A | undefined> => Config.map(Config.option(config), Option.getOrUndefined)

/**
 * How an adapter serves merchants' own accounts (D13): `credentials` is the schema an account's
 * credentials are checked with, and `build` makes the account's adapter from them, decoded (its
 * own key and secret alone, serving `account.environment`). A throw of `build` is the adapter
 * refusing the credentials (`ProviderAccounts.CredentialsRefused` names the field).
 *
 * @since 0.1.0 @category constructors
 */
export const accounts = <A>(
  credentials: Schema.Schema<A, any>,
  build: (credentials: A, account: AccountCredentials) => PaymentProvider
): AccountSupport => {
  const decode = Schema.decodeUnknownEither(credentials)
  return {
    credentials,
    forAccount: (account) => {
      const decoded = decode(account.credentials)
      // Tender checked them when they were written; the parse error would quote them, so it is not kept.
      if (Either.isLeft(decoded)) throw new Error(`the credentials of account ${account.id} do not match the adapter's schema`)
      return build(decoded.right, account)
    }
  }
}
