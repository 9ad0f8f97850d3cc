/**
 * Top-up intents (2.5, 3.2, 4.7, 4.8, D3, D5): create, get, list and a receipt for
 * merchants; the durable tasks that poll the provider, review a receipt and expire an
 * unpaid top-up. The payer's amount comes from `Money.quote` over the host's `FxRates` and
 * `TopupFees` ports; every change is checked against `TopupIntent.canTransition` and
 * written with its D7 event in one commit.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema } from "effect"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import * as Operation from "../requests/Operation.js"
import * as Asset from "../resources/Asset.js"
import { TopupIntentUnexpectedState } from "../resources/Errors.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { Country, Currency } from "../resources/Schemas.js"
import { scopeOf, Write } from "../storage/Storage.js"
import * as Task from "../storage/Task.js"
import * as topupCreate from "./internal/topupCreate.js"
import * as topups from "./internal/topups.js"
import * as topupTasks from "./internal/topupTasks.js"
import type { TopupIntentRecord } from "./TopupIntent.js"
import { SourceType as SourceTypeSchema, Status as StatusSchema, table, toResource } from "./TopupIntent.js"

/** How long a top-up waits for its payment unless its provider says less. @since 0.1.0 @category constants */
export const paymentWindow = topups.paymentWindow

/** How often a top-up's provider is asked whether the payer paid. @since 0.1.0 @category constants */
export const pollEvery = topups.pollEvery

/** The writes of a change: the versioned update and its D7 events. A transition not allowed is a defect. @since 0.1.0 @category transitions */
export const change = topups.change

/**
 * POST /topup_intents (4.7): 201 with the top-up in `requires_payment`. The
 * `Idempotency-Key` is required (checked by the caller, D5); a repeated
 * `merchant_reference` with the same fields answers the original, with changed fields 409
 * `idempotency_conflict` (4.9).
 *
 * @since 0.1.0 @category operations
 */
export const create = topupCreate.create

/**
 * Run one top-up task (poll, receipt review, expiry). Exhaustive over the task kinds: a new kind
 * does not compile until it has a handler.
 *
 * @since 0.1.0 @category tasks
 */
export const run = topupTasks.run

const kind: Resources.Kind<TopupIntentRecord> = { table, noun: "top-up intent" }
const load = (principal: Principal, id: string) => Resources.load(kind, principal, id)

/** GET /topup_intents query (4.8, D3): the filters of 4.3 and `source_type`. @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({
  country: Schema.optional(Country),
  currency: Schema.optional(Currency.annotations({ description: "The destination currency" })),
  ...Pagination.sharedFilters,
  source_type: Schema.optional(Pagination.ValueList.annotations({ description: "One or more source types: single or comma-separated (D3)" }))
})
/** @since 0.1.0 @category request */
export type ListParams = typeof ListParams.Type

const reads = Resources.kindReads(
  kind,
  StatusSchema.literals,
  (params: ListParams, status) =>
    Effect.map(Pagination.parseValues("source_type", params.source_type, SourceTypeSchema.literals), (sourceType) => ({
      country: params.country,
      destinationCurrency: params.currency,
      merchantReference: params.merchant_reference,
      status,
      sourceType
    })),
  toResource
)

/** GET /topup_intents/{id} (4.8, D3): another merchant's or environment's is the same 404. @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /topup_intents (4.8, D6): keyset pages, newest first. @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson

/**
 * POST /topup_intents/{id}/receipt: the payer's receipt of a `manual_receipt` top-up, an
 * asset uploaded earlier (`POST /assets`). The top-up is `processing` while its provider
 * reviews it; the verdict is a durable task.
 *
 * @since 0.1.0
 */
export const submitReceipt = (context: Operation.RequestContext, id: string, assetId: string) =>
  Operation.run({
    context,
    route: "POST /topup_intents/{id}/receipt",
    canonical: { id, asset_id: assetId },
    resource: "top-up intent",
    decide: Effect.gen(function*() {
      const topup = yield* load(context.principal, id)
      if (topup.sourceType !== "manual_receipt") {
        return yield* new TopupIntentUnexpectedState({ message: `A ${topup.sourceType} top-up takes no receipt.` })
      }
      if (topup.status !== "requires_payment" || topup.receipt?.status !== "required") {
        return yield* new TopupIntentUnexpectedState({ message: `This top-up intent is ${topup.status}: it takes no receipt now.` })
      }
      const asset = yield* Asset.find(context.principal, assetId)
      const now = yield* Clock.currentTimeMillis
      const { record, writes } = yield* change(topup, {
        status: "processing",
        nextAction: null,
        receipt: { status: "submitted", asset_id: asset.id }
      }, now)
      const task = yield* Task.make({ ...scopeOf(topup), kind: "topup_intent.submit_receipt", resourceId: id, dueAt: now, now })
      return { response: ApiResponse.json(200, toResource(record), context.requestId), writes: [...writes, Write.insert(Task.table, task)] }
    })
  })
