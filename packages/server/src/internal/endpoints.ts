/**
 * The Promise API's merchant methods: one row per endpoint of the HTTP API, keyed by the
 * HttpApi's own group and endpoint names (`tender.paymentIntents.create` is the endpoint
 * `create` of the group `paymentIntents`, as `client.paymentIntents.create` is its operation
 * `paymentIntents.create`). The table's type is read from `TenderApi`: the compiler refuses it
 * while an endpoint has no row or a row names no endpoint, and a method answers its endpoint's
 * success type. docs/adding-an-endpoint.md.
 */
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import {
  Asset,
  Balances,
  Discovery,
  Events,
  Idempotency,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntents,
  PayoutIntent,
  PayoutIntents,
  Receipts,
  Refund,
  Refunds,
  TopupIntent,
  TopupIntents,
  WebhookEndpoint,
  WebhookEvents,
  WebhookTools
} from "@tender/core"
import type { TenderApi } from "@tender/http/Api"
import { Effect, Schema } from "effect"
import { act, actWith, actWithOptional, create, list, listOf, open, read, retrieve, type Row, scoped, upload } from "./rows.js"
import type * as Api from "./scope.js"

/** The groups `/openapi.json` leaves out (`OpenApi.Exclude`): the document itself, the hosted page and the providers' door. */
type NotMerchantApi = "openApi" | "hostedCheckout" | "providerNotifications"

type Groups = typeof TenderApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/** The merchant API's group names. */
export type GroupName = Exclude<HttpApiGroup.HttpApiGroup.Name<Groups>, NotMerchantApi>

/** The endpoints of the group `G`. */
type EndpointsOf<G extends GroupName> = HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>

/** What the endpoint `E` of the group `G` answers. */
export type Answer<G extends GroupName, E extends string> = HttpApiEndpoint.HttpApiEndpoint.SuccessWithName<EndpointsOf<G>, E>

/** One row for each endpoint of each group, and nothing else. */
type Complete = {
  readonly [G in GroupName]: { readonly [E in HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<G>>]: Row<ReadonlyArray<unknown>> }
}

const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const
const ReceiptByAsset = Schema.Struct({ asset_id: Schema.String }).annotations(strict)

/**
 * A payment's receipt (4.4): an asset uploaded before, or the file's bytes (HTTP: JSON, or
 * multipart). One struct rather than a union, so a bad field is named as the route names it.
 */
const PaymentReceipt = Schema.Struct({ asset_id: Schema.optional(Schema.String), file: Schema.optional(Schema.Uint8ArrayFromSelf) })
  .annotations(strict)
  .pipe(Schema.filter((p) => (p.asset_id === undefined) !== (p.file === undefined) || { path: ["asset_id"], message: "Send either asset_id or file." }))

/** The receipt's arguments as the type says them: one of the two. */
type PaymentReceiptRow = Row<[id: string, params: { readonly asset_id: string } | { readonly file: Uint8Array }, options: Api.WriteOptions]>

/** Every merchant endpoint's method, each running the core operation its HTTP handler runs (`Handlers.ts`). */
export const table = {
  paymentIntents: {
    create: create(PaymentIntent.CreateParams, PaymentIntents.create),
    retrieve: retrieve(PaymentIntents.retrieve),
    list: list(PaymentIntents.ListParams, PaymentIntents.list),
    confirm: act(PaymentIntents.confirm),
    receipt: actWith(PaymentReceipt, (context, id, { asset_id, file }) =>
      file !== undefined
        // 4.4: a file sent as the receipt requires an Idempotency-Key, as its multipart request does.
        ? Effect.flatMap(Idempotency.validateKey(context.idempotencyKey, true), () => Receipts.submit(context, id, { _tag: "File", bytes: file }))
        : Receipts.submit(context, id, { _tag: "AssetId", assetId: asset_id ?? "" })) as PaymentReceiptRow,
    cancel: actWithOptional(PaymentIntentCancel.CancelParams, PaymentIntentCancel.cancel)
  },
  assets: {
    upload: upload(Schema.Uint8ArrayFromSelf, Asset.upload)
  },
  payoutIntents: {
    create: create(PayoutIntent.CreateParams, PayoutIntents.create),
    retrieve: retrieve(PayoutIntents.retrieve),
    list: list(PayoutIntents.ListParams, PayoutIntents.list),
    cancel: act(PayoutIntents.cancel)
  },
  refunds: {
    create: create(Refund.CreateParams, Refunds.create),
    retrieve: retrieve(Refunds.retrieve),
    list: list(Refunds.ListParams, Refunds.list)
  },
  topupIntents: {
    // 4.7, D5: the key is required.
    create: create(
      TopupIntent.CreateParams,
      (context, params) => Effect.flatMap(Idempotency.validateKey(context.idempotencyKey, true), () => TopupIntents.create(context, params))
    ),
    retrieve: retrieve(TopupIntents.retrieve),
    list: list(TopupIntents.ListParams, TopupIntents.list),
    receipt: actWith(ReceiptByAsset, (context, id, params) => TopupIntents.submitReceipt(context, id, params.asset_id))
  },
  webhookEndpoints: {
    create: create(WebhookEndpoint.CreateParams, WebhookEndpoint.create),
    list: list(WebhookEndpoint.ListParams, WebhookEndpoint.list),
    retrieve: retrieve(WebhookEndpoint.retrieve),
    delete: act(WebhookEndpoint.remove),
    attempts: listOf(WebhookTools.AttemptsParams, WebhookTools.attempts),
    resend: actWith(WebhookTools.ResendParams, WebhookTools.resend),
    rotateSecret: actWithOptional(WebhookTools.RotateParams, WebhookTools.rotate),
    enable: act(WebhookTools.enable)
  },
  events: {
    retrieve: retrieve(Events.retrieve),
    list: list(Events.ListParams, Events.list)
  },
  balance: {
    retrieve: scoped(Balances.balance)
  },
  balanceTransactions: {
    retrieve: retrieve(Balances.retrieve),
    list: list(Balances.ListParams, Balances.list)
  },
  paymentMethods: {
    options: read(Discovery.DiscoveryParams, Discovery.discover)
  },
  webhookEventTypes: {
    catalogue: open(Effect.succeed(WebhookEvents.catalogue))
  }
} satisfies Complete

type Table = typeof table

/** The Promise method of each row: its arguments, and its endpoint's success as the answer. */
export type Methods = {
  readonly [G in keyof Table]: {
    readonly [E in keyof Table[G]]: Table[G][E] extends Row<infer Args> ? (...args: Args) => Promise<Answer<G, E & string>> : never
  }
}
