/**
 * The routing decision at execution: try the healthy routes resolved for a method, best
 * first, and fail over to the next when a provider is unavailable or too slow. Route
 * health learns from every outcome.
 *
 * @since 0.1.0
 */
import { Duration, Effect } from "effect"
import * as Telemetry from "../observability/Telemetry.js"
import { mayHaveActed, providerText } from "../providers/internal/providerUpdate.js"
import type { ProviderPaymentRequest, ProviderPaymentResult } from "../providers/Provider.js"
import { ProviderUnavailable } from "../providers/Provider.js"
import * as ProviderAttempt from "../providers/ProviderAttempt.js"
import { RoutingUnavailable, ValidationFailed } from "../resources/Errors.js"
import type { IdGenerator } from "../resources/Ids.js"
import type { Storage } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Candidate, PayerData } from "./Discovery.js"
import { payerProblems, providerPayer } from "./Discovery.js"
import { RouteHealth } from "./RouteHealth.js"

/** How long a provider may take before the attempt counts as a route failure. @since 0.1.0 */
export const providerTimeout = Duration.seconds(20)

/**
 * A provider call bounded by `providerTimeout`: interruptible even inside an uninterruptible
 * task or request step (a call that ignored interruption could never be cut off), and a
 * timeout is `ProviderUnavailable` like any other unavailability. Its answer's text is made
 * storable (`providerText`: no NUL), so a provider's text is kept alike on every store. Every provider call goes
 * through here, named by its `operation` for its span and latency metric (docs/observability.md).
 * @since 0.1.0
 */
export const boundedCall = <A, R>(provider: string, effect: Effect.Effect<A, ProviderUnavailable, R>, operation: string) =>
  Effect.interruptible(effect).pipe(
    Effect.timeoutFail({ duration: providerTimeout, onTimeout: () => new ProviderUnavailable({ provider, reason: "timed out" }) }),
    // The provider's text as every store keeps it alike (`providerText`).
    Effect.map(providerText),
    Effect.mapError((e) => providerText(e.reason) === e.reason ? e : new ProviderUnavailable({ ...e, reason: providerText(e.reason) })),
    Telemetry.providerCall(provider, operation)
  )

/** The provider that answered and its answer. @since 0.1.0 @category models */
export interface Routed {
  readonly provider: string
  /** The merchant's own account the route named (D13), or null for the deployment's: stored on the object for its whole life. */
  readonly providerAccount: string | null
  readonly result: ProviderPaymentResult
}

/**
 * Create the payment at the first route that answers, with the payer data its method's family
 * takes (`Discovery.providerPayer`); a route whose answer was lost is remembered and canceled
 * (`ProviderAttempt.remember`) before the next is asked. Payer data the best route refuses (a
 * field it requires missing, a value its family's format refuses): 400. Every route
 * unavailable: 422 `routing_unavailable`.
 *
 * @since 0.1.0
 */
export const createPayment = (
  candidates: ReadonlyArray<Candidate>,
  payer: PayerData,
  request: Omit<ProviderPaymentRequest, "providerMethod" | "payer">,
  merchantId: string
): Effect.Effect<Routed, RoutingUnavailable | ValidationFailed | StorageError, RouteHealth | Storage | IdGenerator> =>
  Effect.gen(function*() {
    const first = candidates[0]
    const missing = first === undefined ? [] : payerProblems(first, payer)
    if (missing.length > 0) return yield* ValidationFailed.many(missing)
    const health = yield* RouteHealth
    for (const candidate of candidates) {
      // The first was checked above: only the routes after it are checked here.
      if (candidate !== first && payerProblems(candidate, payer).length > 0) continue
      // Operations run uninterruptibly (their claims must be settled); the provider call alone may be
      // interrupted, or the timeout could never cut it off.
      const sent: ProviderPaymentRequest = {
        ...request,
        providerMethod: candidate.method.providerMethod,
        payer: providerPayer(candidate, payer)
      }
      const attempt = yield* boundedCall(candidate.provider.code, candidate.provider.createPayment(sent), "createPayment").pipe(Effect.either)
      if (attempt._tag === "Left") {
        yield* health.recordFailure(candidate.route)
        yield* Effect.logWarning("provider unavailable", attempt.left.provider, attempt.left.reason)
        // The provider may have made the payment (a lost answer): it is remembered, with its
        // cancel task, before another route is asked, so one provider holds the intent's payment.
        if (mayHaveActed(attempt.left)) {
          yield* ProviderAttempt.remember(merchantId, candidate.provider.code, candidate.route.providerAccount ?? null, sent, attempt.left)
        }
        continue
      }
      yield* health.recordSuccess(candidate.route)
      return { provider: candidate.provider.code, providerAccount: candidate.route.providerAccount ?? null, result: attempt.right }
    }
    return yield* new RoutingUnavailable({
      message: "No route could take the payment: its providers are unavailable. Retry later or choose another method."
    })
  })
