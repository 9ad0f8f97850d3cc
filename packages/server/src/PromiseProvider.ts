/**
 * Provider adapters in plain JavaScript (docs/provider-adapters.md, "Without Effect"): the
 * same port as core's `PaymentProvider`, with `async` functions instead of Effects.
 * `defineProvider` wraps them into the port, so routing, timeouts, route health, the durable
 * tasks and idempotency treat a Promise adapter exactly as an Effect one.
 *
 * A function that throws (or rejects) means the provider could not be reached or answered with
 * a fault: it counts against the route's health and the operation is retried or routed
 * elsewhere, as core's `ProviderUnavailable`. A decline is an answer, not a throw
 * (`{ _tag: "Failed", … }`; 0.1.0's `{ _tag: "Declined", … }` is still read as one). Every function gets an `AbortSignal` that fires when Tender
 * stops waiting (the bounded provider call timed out, or the instance is closing): pass it to
 * `fetch`.
 *
 * `parseNotification` (D11) is the exception: it verifies a provider's notification, and a
 * throw (or a rejection) there means the request could not be verified: it is answered 400
 * `signature_invalid` and nothing is stored, as Stripe's `webhooks.constructEvent` throws on a
 * bad signature.
 *
 * Every result is checked against the port (`ProviderResults.results` of @tender/core, one
 * schema per method): a result the port does not allow (a `createPayment` answer without
 * `providerPaymentId`) is logged as one line naming the method and the field and counts as the
 * provider unavailable, so nothing is stored from it; a bad notification is answered 503 and
 * sent again by the provider.
 *
 * @since 0.1.0
 */
import type { Provider, ProviderNotification } from "@tender/core"
import { Provider as CoreProvider, ProviderNotification as Notification, ProviderResults } from "@tender/core"
import { Effect } from "effect"

/** What every adapter function gets besides its request. @since 0.1.0 @category models */
export interface CallOptions {
  readonly signal: AbortSignal
}

type Fn<A, B> = (request: A, options: CallOptions) => Promise<B>

/** A provider adapter written with Promises. @since 0.1.0 @category models */
export interface PromiseProvider {
  /** The provider's code, as routes name it (`provider` in the seed). */
  readonly code: string
  readonly methods: ReadonlyArray<Provider.ProviderMethod>
  /** A decline may also be answered as 0.1.0's `{ _tag: "Declined", … }`: read as `Failed`. */
  readonly createPayment: Fn<Provider.ProviderPaymentRequest, Provider.ProviderPaymentResult | Declined>
  /**
   * Every function after create is optional, as in core's port, and what the adapter has decides
   * what Tender asks of it (`Provider.capabilitiesOf`; a method may withdraw more with
   * `capabilities`): without `confirmPayment` a confirm is 409, without `getPaymentStatus` a
   * payment is never polled (its notifications and its expiry move it).
   */
  readonly confirmPayment?: Fn<Provider.ProviderPaymentRef, Provider.ProviderPaymentStatus> | undefined
  readonly getPaymentStatus?: Fn<Provider.ProviderPaymentRef, Provider.ProviderPaymentStatus> | undefined
  /** For methods whose next action asks for a receipt (4.4). Absent: a receipt upload is 409. */
  readonly submitReceipt?:
    | ((payment: Provider.ProviderPaymentRef, receipt: Provider.ProviderReceipt, options: CallOptions) => Promise<Provider.ProviderPaymentStatus>)
    | undefined
  readonly sendPayout?: Fn<Provider.ProviderPayout, Provider.ProviderPaymentStatus> | undefined
  /** 0.1.0's `{ _tag: "AlreadyPaid" }` is still read, as `Succeeded`. */
  readonly cancelPayment?: Fn<Provider.ProviderPaymentRef, Provider.ProviderCancelResult | { readonly _tag: "AlreadyPaid" }> | undefined
  readonly refund?: Fn<Provider.ProviderRefundRequest, Provider.ProviderRefundStatus> | undefined
  /**
   * Verify a notification the provider sent and say what it reports (D11): `{ notices, answer }`.
   * The signature is over `request.body`, the exact bytes received. Throw (or reject) when the
   * request cannot be verified: it is answered 400 `signature_invalid` and nothing is stored.
   */
  readonly parseNotification?: Fn<ProviderNotification.ProviderNotificationRequest, ProviderNotification.ParsedNotification> | undefined
}

/** 0.1.0's name of a create's decline, still accepted from a Promise adapter. @since 0.1.0 @category models */
export interface Declined {
  readonly _tag: "Declined"
  readonly providerPaymentId: string | null
  readonly failureCode: string
  readonly failureMessage: string
}

/** A create's answer in the port's one update type: a `Declined` is a `Failed`. */
const created = (result: Provider.ProviderPaymentResult | Declined): Provider.ProviderPaymentResult =>
  isTagged(result, "Declined") ? { ...(result as Declined), _tag: "Failed" } : result as Provider.ProviderPaymentResult

/** A cancel's answer in the port's one update type: `AlreadyPaid` is the payment `Succeeded`. */
const canceled = (result: Provider.ProviderCancelResult | { readonly _tag: "AlreadyPaid" }): Provider.ProviderCancelResult =>
  isTagged(result, "AlreadyPaid") ? { _tag: "Succeeded" } : result as Provider.ProviderCancelResult

/** Whether a result an adapter gave (checked afterwards, so anything) carries `tag`. */
const isTagged = (result: unknown, tag: string): boolean =>
  typeof result === "object" && result !== null && (result as { readonly _tag?: unknown })._tag === tag

/**
 * Tender's failure codes with the message each carries (docs/provider-adapters.md, "Tender's
 * failure codes"): a decline carries one of them, never the provider's own code (D1).
 *
 * @since 0.1.0 @category constants
 */
export const failureMessages = CoreProvider.failureMessages
/**
 * Tender's failure for a provider's decline: the first of `reasons` (the provider's codes, most
 * telling first) that `codes` names, else `payment_declined`; with its message.
 *
 * @since 0.1.0 @category constructors
 */
export const failureFor: typeof CoreProvider.failureFor = CoreProvider.failureFor
/** One of Tender's failure codes. @since 0.1.0 @category models */
export type FailureCode = Provider.FailureCode
/** A provider's own codes for each of Tender's failure codes it tells apart. @since 0.1.0 @category models */
export type FailureCodes = Provider.FailureCodes

const reasonOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * Wrap a Promise adapter into core's `PaymentProvider` port. Give the result to
 * `createTender({ providers: [...] })`, beside Effect adapters if any.
 *
 * @since 0.1.0 @category constructors
 */
export const defineProvider = (adapter: PromiseProvider): Provider.PaymentProvider => {
  const lift = <B>(fn: (options: CallOptions) => Promise<B>): Effect.Effect<B, CoreProvider.ProviderUnavailable> =>
    Effect.tryPromise({
      try: (signal) => fn({ signal }),
      catch: (error) => new CoreProvider.ProviderUnavailable({ provider: adapter.code, reason: reasonOf(error) })
    })
  /** `method`'s result, checked against the port: one the port does not allow is the provider's fault, never used. */
  const checked = <B>(method: Exclude<ProviderResults.Method, "parseNotification">, fn: (options: CallOptions) => Promise<B>) =>
    Effect.flatMap(lift(fn), (result) => {
      const problem = ProviderResults.problem(adapter.code, method, result)
      return problem === undefined
        ? Effect.succeed(result)
        : Effect.zipRight(Effect.logError(`tender: ${problem}`), Effect.fail(new CoreProvider.ProviderUnavailable({ provider: adapter.code, reason: problem })))
    })
  // Called as methods of the adapter: an adapter written as a class keeps its `this`.
  const optional = <A, B>(method: "confirmPayment" | "getPaymentStatus" | "sendPayout" | "cancelPayment" | "refund", fn: Fn<A, B> | undefined) =>
    fn === undefined ? undefined : (request: A) => checked(method, (o) => fn.call(adapter, request, o))
  return {
    code: adapter.code,
    methods: adapter.methods,
    // 0.1.0's names (`Declined`, `AlreadyPaid`) become the port's before the result is checked.
    createPayment: (request) => checked("createPayment", (o) => Promise.resolve(adapter.createPayment(request, o)).then(created)),
    confirmPayment: optional("confirmPayment", adapter.confirmPayment),
    getPaymentStatus: optional("getPaymentStatus", adapter.getPaymentStatus),
    submitReceipt: adapter.submitReceipt === undefined
      ? undefined
      : (payment, receipt) => checked("submitReceipt", (o) => adapter.submitReceipt!.call(adapter, payment, receipt, o)),
    sendPayout: optional("sendPayout", adapter.sendPayout),
    cancelPayment: adapter.cancelPayment === undefined
      ? undefined
      : (payment) => checked("cancelPayment", (o) => Promise.resolve(adapter.cancelPayment!.call(adapter, payment, o)).then(canceled)),
    refund: optional("refund", adapter.refund),
    // Its result is checked by core's `ProviderNotifications.receive`, for every adapter.
    parseNotification: adapter.parseNotification === undefined ? undefined : (request) =>
      Effect.tryPromise({
        try: (signal) => adapter.parseNotification!.call(adapter, request, { signal }),
        catch: (error) => new Notification.NotificationUnverified({ provider: adapter.code, reason: reasonOf(error) })
      })
  }
}
