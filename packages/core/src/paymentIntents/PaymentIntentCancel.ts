/**
 * Cancel a payment intent (D10): `POST /payment_intents/{id}/cancel`, only from
 * `requires_action`, and the durable task that tells the provider, so the QR code, transfer
 * reference or bank redirect stops being payable. The provider's answer is applied as every
 * provider update is (`PaymentIntentLifecycle.applyUpdate`): a payment the payer had made
 * already is refunded as a late payment, the intent stays canceled and no money is dropped.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import { adapterOf, capabilitiesOfPayment } from "../providers/ProviderAccounts.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import * as Operation from "../requests/Operation.js"
import { PaymentIntentUnexpectedState, ResourceNotFound, ValidationFailed } from "../resources/Errors.js"
import { isWellFormed, prefixes } from "../resources/Ids.js"
import { boundedCall } from "../routing/Routing.js"
import { Storage, Write } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"
import { CancellationReason, table, toResource } from "./PaymentIntent.js"
import { applyUpdate, change, providerRef } from "./PaymentIntentLifecycle.js"

/** POST /payment_intents/{id}/cancel body (D10): `{}`, absent, or a reason. @since 0.1.0 @category request */
export const CancelParams = Schema.Struct({
  cancellation_reason: Schema.optional(CancellationReason)
}).annotations({ identifier: "PaymentIntentCancelParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type CancelParams = typeof CancelParams.Type

/**
 * POST /payment_intents/{id}/cancel (D10): 200 with the intent `canceled`, `next_action` null,
 * `cancellation_reason` as given (null when none was). Any status but `requires_action` is 409
 * `payment_intent_unexpected_state`. The provider is told by a task written in the same commit.
 *
 * @since 0.1.0
 */
export const cancel = (context: Operation.RequestContext, id: string, params: CancelParams) =>
  Operation.run({
    context,
    route: "POST /payment_intents/{id}/cancel",
    canonical: { id, cancellation_reason: params.cancellation_reason },
    resource: "payment intent",
    decide: Effect.gen(function*() {
      if (!isWellFormed(prefixes.paymentIntent, id)) {
        return yield* ValidationFailed.at("id", "id must be a payment intent id: dord_ followed by 24 letters and digits")
      }
      const scope = { merchantId: context.principal.merchant.id, environment: context.principal.environment }
      const found = yield* (yield* Storage).get(table, scope, id)
      if (Option.isNone(found)) return yield* new ResourceNotFound({ param: "id", message: `No payment intent ${JSON.stringify(id)}.` })
      const intent = found.value
      if (intent.status !== "requires_action") {
        return yield* new PaymentIntentUnexpectedState({
          message: `This payment intent is ${intent.status}: only a payment intent awaiting its payer can be canceled.`
        })
      }
      const now = yield* Clock.currentTimeMillis
      const { record, writes } = yield* change(intent, {
        status: "canceled",
        nextAction: null,
        hostedAction: null,
        cancellationReason: params.cancellation_reason ?? null
      }, now)
      // Only a payment at a provider has anything to stop (a hosted intent before the payer chose has none).
      const tell = intent.providerPaymentId === null
        ? []
        : [Write.insert(Task.table, yield* Task.make({ ...scope, kind: "payment_intent.cancel", resourceId: id, dueAt: now, now }))]
      return { response: ApiResponse.json(200, toResource(record), context.requestId), writes: [...writes, ...tell] }
    })
  })

/**
 * Run the cancel task: tell the provider. An unavailable provider is asked again with back-off;
 * a method whose provider cannot cancel (`capabilitiesOf`) is not told (a payment it reports later is still refunded).
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord) =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).get(table, { merchantId: task.merchantId, environment: task.environment }, task.resourceId)
    if (Option.isNone(found) || found.value.status !== "canceled") return Task.done()
    const intent = found.value
    const ref = providerRef(intent)
    const provider = yield* adapterOf(intent)
    const cancelPayment = (yield* capabilitiesOfPayment(intent)).cancel ? provider?.cancelPayment : undefined
    if (ref === undefined || provider === undefined || cancelPayment === undefined) return Task.done()
    const answer = yield* boundedCall(provider.code, cancelPayment(ref), "cancelPayment").pipe(Effect.either)
    const now = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") return Task.retry(task, now, answer.left.reason)
    // `Canceled` changes nothing; a payment the payer made already is D10's late-payment refund.
    return Task.done((yield* applyUpdate(intent, answer.right, { _tag: "cancel" }, now)).writes)
  })
