/**
 * Receipts (4.4): payment evidence attached to a payment intent whose method asks for it
 * (`receipt.status` `required`), by an asset uploaded earlier or a file in the request. The
 * receipt is submitted to the provider as a durable task (3.1.6); its answer moves the
 * intent on, read by polling GET or by its events.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { capabilitiesOfPayment } from "../providers/ProviderAccounts.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import * as Operation from "../requests/Operation.js"
import * as Asset from "../resources/Asset.js"
import { PaymentIntentUnexpectedState, ResourceNotFound, ValidationFailed } from "../resources/Errors.js"
import { isWellFormed, prefixes } from "../resources/Ids.js"
import { Storage, Write } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"
import { isTerminal, table, toResource } from "./PaymentIntent.js"
import * as Lifecycle from "./PaymentIntentLifecycle.js"

/** The evidence: an asset uploaded earlier, or a file uploaded with the request. @since 0.1.0 @category models */
export type Evidence =
  | { readonly _tag: "AssetId"; readonly assetId: string }
  | { readonly _tag: "File"; readonly bytes: Uint8Array }

/**
 * POST /payment_intents/{id}/receipt (4.4): 200 with the intent and its receipt, now
 * `submitted`; the intent is `processing` (3.1.2: no payer action remains) and emits
 * `payment_intent.processing` and `payment_intent.receipt_submitted` (D7).
 *
 * @since 0.1.0
 */
export const submit = (context: Operation.RequestContext, id: string, evidence: Evidence) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const { principal, requestId } = context
    // A file that is no JPEG or PNG is bad input, answered before the key is looked at (D5).
    const file = evidence._tag === "File" ? yield* Effect.either(Asset.inspect({ param: "file", bytes: evidence.bytes })) : undefined
    if (file?._tag === "Left") return ApiResponse.fromError(file.left, requestId)
    return yield* Operation.run({
      context,
      route: "POST /payment_intents/{id}/receipt",
      // 4.4: retries are fingerprinted by the receipt's digest.
      canonical: { id, ...(evidence._tag === "AssetId" ? { asset_id: evidence.assetId } : { sha256: file?.right.sha256 }) },
      resource: "payment intent",
      decide: Effect.gen(function*() {
        if (!isWellFormed(prefixes.paymentIntent, id)) {
          return yield* ValidationFailed.at("id", "id must be a payment intent id: dord_ followed by 24 letters and digits")
        }
        const scope = { merchantId: principal.merchant.id, environment: principal.environment }
        const found = yield* storage.get(table, scope, id)
        if (Option.isNone(found)) return yield* new ResourceNotFound({ param: "id", message: `No payment intent ${JSON.stringify(id)}.` })
        const intent = found.value
        if (isTerminal(intent.status)) {
          return yield* new PaymentIntentUnexpectedState({ message: `This payment intent is ${intent.status}: it takes no receipt.` })
        }
        if (intent.receipt === null || intent.providerPaymentId === null) {
          return yield* new PaymentIntentUnexpectedState({ message: "This payment intent's method takes no receipt." })
        }
        if (!(yield* capabilitiesOfPayment(intent)).receipt) {
          return yield* new PaymentIntentUnexpectedState({ message: "This payment intent's provider takes no receipt for its method." })
        }
        if (intent.receipt.status !== "required") {
          return yield* new PaymentIntentUnexpectedState({ message: `A receipt was submitted already: it is ${intent.receipt.status}.` })
        }
        const now = yield* Clock.currentTimeMillis
        const asset = evidence._tag === "AssetId"
          ? yield* Asset.find(principal, evidence.assetId)
          : yield* Asset.make(principal, { param: "file", bytes: evidence.bytes }, now)
        const { record, writes } = yield* Lifecycle.change(
          intent,
          {
            status: "processing",
            nextAction: null,
            hostedAction: null,
            processingReason: "asynchronous",
            receipt: { status: "submitted", asset_id: asset.id }
          },
          now,
          ["payment_intent.receipt_submitted"]
        )
        const task = yield* Task.make({ ...scope, kind: "payment_intent.submit_receipt", resourceId: id, dueAt: now, now })
        return {
          response: ApiResponse.json(200, toResource(record), requestId),
          writes: [
            ...(evidence._tag === "File" ? [Write.insert(Asset.table, asset)] : []),
            ...writes,
            Write.insert(Task.table, task)
          ]
        }
      })
    })
  })
