/**
 * Webhook endpoints (6, D3, D7): the URLs a merchant registers to hear of its events, each
 * with the event types it wants and a signing secret. Scoped to the merchant and
 * environment of the key that registered it. The secret is shown once, at create; it is
 * stored encrypted (AES-256-GCM under the host's `encryptionKey`), because signing needs it
 * back.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Schema } from "effect"
import { EventType } from "../events/WebhookEvents.js"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import * as Operation from "../requests/Operation.js"
import { ResourceNotFound, ValidationFailed } from "../resources/Errors.js"
import { IdGenerator, isWellFormed, prefixes } from "../resources/Ids.js"
import * as Resources from "../resources/internal/resources.js"
import * as Pagination from "../resources/Pagination.js"
import { BoundedString, Environment, formatTimestamp, maxCharacters, StorableText, Timestamp, withMessage } from "../resources/Schemas.js"
import type { Scope } from "../storage/Storage.js"
import { scopeOf as Storage_scopeOf, Storage, Write } from "../storage/Storage.js"
import * as Table from "../storage/Table.js"
import * as PublicAddress from "./PublicAddress.js"
import * as Config from "./WebhookConfig.js"
import * as WebhookSignature from "./WebhookSignature.js"

// The host's settings have one home, `WebhookConfig`; these names of 0.1.0 still work.
/** @deprecated since 0.1.1: `WebhookConfig.WebhookConfig`. @since 0.1.0 @category tags */
export const WebhookConfig: typeof Config.WebhookConfig = Config.WebhookConfig
/** @deprecated since 0.1.1: `WebhookConfig.WebhookConfig`. @since 0.1.0 @category tags */
export type WebhookConfig = Config.WebhookConfig
/** @deprecated since 0.1.1: `WebhookConfig.layerConfig`. @since 0.1.0 @category layers */
export const layerConfig = Config.layerConfig
/** @deprecated since 0.1.1: `WebhookConfig.WebhookOptions`. @since 0.1.0 @category models */
export type WebhookOptions = Config.WebhookOptions

// ---------------------------------------------------------------------------
// The record
// ---------------------------------------------------------------------------

/** A signing secret, encrypted, with when it stops signing (rotation). @since 0.1.0 @category models */
export const StoredSecret = Schema.Struct({
  encrypted: Schema.String,
  /** Epoch ms after which it no longer signs; null while it is the current one. */
  expiresAt: Schema.NullOr(Schema.Number)
})

/** The stored endpoint. @since 0.1.0 @category models */
export const WebhookEndpointRecord = Schema.Struct({
  ...Table.scopeFields,
  url: Schema.String,
  description: Table.OrNull(Schema.String),
  /** The event types delivered; `["*"]` for all. */
  enabledEvents: Schema.Array(Schema.String),
  secrets: Schema.Array(StoredSecret),
  /** `disabled`: every attempt failed for `disableAfterMillis`; no deliveries until enabled again. */
  status: Schema.Literal("enabled", "disabled", "deleted"),
  /** When the current run of failed attempts began; null after a success. */
  failingSince: Table.OrNull(Table.Millis),
  /** When the current hour of resends began (`WebhookTools.resend`); null before the first. */
  resendWindowStartedAt: Table.OrNull(Table.Millis),
  /** How many deliveries resends queued in that hour. */
  resendsInWindow: Table.OrNull(Table.Integer),
  ...Table.changeFields
})
/** @since 0.1.0 @category models */
export type WebhookEndpointRecord = typeof WebhookEndpointRecord.Type

/** How endpoints are stored. @since 0.1.0 @category models */
export const table = Table.make({ name: "webhook_endpoints", idPrefix: prefixes.webhookEndpoint, record: WebhookEndpointRecord })

/** Whether an endpoint wants events of `type`. @since 0.1.0 */
export const wants = (endpoint: WebhookEndpointRecord, type: string): boolean =>
  endpoint.status === "enabled" && (endpoint.enabledEvents.includes("*") || endpoint.enabledEvents.includes(type))

/** The secrets that sign now: the current one and any still in their grace period. @since 0.1.0 */
export const signingSecrets = (endpoint: WebhookEndpointRecord, now: number) =>
  Effect.map(WebhookConfig, (config) => endpoint.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => config.decrypt(s.encrypted)))

// ---------------------------------------------------------------------------
// Wire
// ---------------------------------------------------------------------------

const endpointFields = {
  object: Schema.Literal("webhook_endpoint"),
  id: Schema.String.annotations({ description: "Begins with we_" }),
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  enabled_events: Schema.Array(Schema.String).annotations({ description: "Event types delivered; [\"*\"] for all (D7)" }),
  status: Schema.Literal("enabled", "disabled").annotations({
    description: "disabled: no deliveries until enabled again (POST /webhook_endpoints/{id}/enable)"
  }),
  environment: Environment,
  created_at: Timestamp
}

/** An endpoint as get and list return it: never its secret. @since 0.1.0 @category wire */
export const WebhookEndpoint = Schema.Struct(endpointFields).annotations({ identifier: "WebhookEndpoint" })
/** The create response: the endpoint and its secret, shown this once. @since 0.1.0 @category wire */
export const WebhookEndpointCreated = Schema.Struct({
  ...endpointFields,
  secret: Schema.String.annotations({ description: "whsec_…: shown once; verify deliveries with it (Standard Webhooks)" })
}).annotations({ identifier: "WebhookEndpointCreated" })
/** The answer to a delete. @since 0.1.0 @category wire */
export const WebhookEndpointDeleted = Schema.Struct({
  object: Schema.Literal("webhook_endpoint"),
  id: Schema.String,
  deleted: Schema.Literal(true)
}).annotations({ identifier: "WebhookEndpointDeleted" })

/** @since 0.1.0 @category wire */
export const toResource = (e: WebhookEndpointRecord): typeof WebhookEndpoint.Type => ({
  object: "webhook_endpoint",
  id: e.id,
  url: e.url,
  description: e.description,
  enabled_events: e.enabledEvents,
  status: e.status === "disabled" ? "disabled" : "enabled",
  environment: e.environment,
  created_at: formatTimestamp(e.createdAt)
})

/** POST /webhook_endpoints body (D3). @since 0.1.0 @category request */
export const CreateParams = Schema.Struct({
  url: withMessage(StorableText.pipe(Schema.minLength(1), maxCharacters(2048)), "must be an absolute https URL of at most 2048 characters"),
  enabled_events: Schema.optional(Schema.Array(Schema.Union(EventType, Schema.Literal("*"))).pipe(Schema.minItems(1))),
  description: Schema.optional(BoundedString(512))
}).annotations({ identifier: "WebhookEndpointCreateParams", parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category request */
export type CreateParams = typeof CreateParams.Type

/** GET /webhook_endpoints query. @since 0.1.0 @category request */
export const ListParams = Pagination.listParams({})

// ---------------------------------------------------------------------------
// The URL rule (SSRF)
// ---------------------------------------------------------------------------

/**
 * Check an endpoint URL (D3, 6): absolute, without credentials; `https` in live (`http` is
 * allowed in test, for local receivers); in live, a host that is an IP literal outside the
 * public ranges (IPv4-mapped IPv6 included) or a loopback name (`localhost`, `*.localhost`,
 * with or without a trailing dot) is refused unless the host allows private URLs
 * (`PublicAddress.refusedHost`). Names are checked again by the addresses they resolve to,
 * at connect time, by the delivery client (`DeliveryClient`).
 *
 * @since 0.1.0
 */
export const checkUrl = (raw: string, environment: Environment) =>
  Effect.gen(function*() {
    const config = yield* WebhookConfig
    const bad = (message: string) => ValidationFailed.at("url", message)
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return yield* bad("url must be an absolute URL")
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return yield* bad("url must be https (or http in the test environment)")
    if (environment === "live" && url.protocol !== "https:") return yield* bad("url must be https in the live environment")
    if (url.username !== "" || url.password !== "") return yield* bad("url must not hold credentials")
    if (url.hash !== "") return yield* bad("url must not have a fragment")
    const refused = environment === "live" && !config.allowPrivateUrls ? PublicAddress.refusedHost(url.hostname) : undefined
    if (refused !== undefined) {
      return yield* bad(`url must not point at a loopback, link-local, private or otherwise non-public address in the live environment: ${refused}`)
    }
    return url.toString()
  })

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

/**
 * The merchant and environment of a caller.
 *
 * @deprecated since 0.1.1: `Storage.scopeOf`, which also takes a record. @since 0.1.0
 */
export const scopeOf: (principal: Principal) => Scope = Storage_scopeOf

const notFound = (id: string) => new ResourceNotFound({ param: "id", message: `No webhook endpoint ${JSON.stringify(id)}.` })

/** An endpoint of the caller's scope that is not deleted, or the D1 400/404. @since 0.1.0 */
export const load = (principal: Principal, id: string) =>
  Effect.gen(function*() {
    if (!isWellFormed(prefixes.webhookEndpoint, id)) {
      return yield* ValidationFailed.at("id", "id must be a webhook endpoint id: we_ followed by 24 letters and digits")
    }
    const found = yield* (yield* Storage).get(table, scopeOf(principal), id)
    if (Option.isNone(found) || found.value.status === "deleted") return yield* notFound(id)
    return found.value
  })

/**
 * POST /webhook_endpoints (D3): register a URL; 201 with the endpoint and its secret, shown
 * this once.
 *
 * @since 0.1.0
 */
export const create = (context: Operation.RequestContext, params: CreateParams) =>
  Operation.run({
    context,
    route: "POST /webhook_endpoints",
    canonical: { ...params, enabled_events: params.enabled_events === undefined ? ["*"] : [...new Set(params.enabled_events)].sort() },
    resource: "webhook endpoint",
    decide: Effect.gen(function*() {
      const { principal } = context
      const url = yield* checkUrl(params.url, principal.environment)
      const config = yield* WebhookConfig
      const now = yield* Clock.currentTimeMillis
      const secret = WebhookSignature.newSecret()
      const enabled = params.enabled_events === undefined || params.enabled_events.includes("*")
        ? ["*"]
        : [...new Set(params.enabled_events)]
      const record = Table.construct(WebhookEndpointRecord, {
        id: yield* (yield* IdGenerator).make(prefixes.webhookEndpoint),
        ...scopeOf(principal),
        url,
        description: params.description ?? null,
        enabledEvents: enabled,
        secrets: [{ encrypted: config.encrypt(secret), expiresAt: null }],
        status: "enabled",
        ...Table.firstWrite(now)
      })
      return {
        response: ApiResponse.json(201, { ...toResource(record), secret }, context.requestId),
        writes: [Write.insert(table, record)]
      }
    })
  })

const reads = Resources.reads(load, (view) => (principal, params: typeof ListParams.Type) =>
  Effect.gen(function*() {
    const { limit, query } = yield* Pagination.window(params, prefixes.webhookEndpoint)
    const rows = yield* (yield* Storage).list<WebhookEndpointRecord>(table, { ...scopeOf(principal), ...query, where: { status: ["enabled", "disabled"] } })
    return Pagination.page(rows, limit, view)
  }), toResource)

/** GET /webhook_endpoints/{id}. @since 0.1.0 */
export const retrieve = reads.retrieve
/** `retrieve`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const retrieveJson = reads.retrieveJson
/** GET /webhook_endpoints: the list envelope, newest first (D6). @since 0.1.0 */
export const list = reads.list
/** `list`'s answer as the JSON text the HTTP binding sends. @since 0.1.0 */
export const listJson = reads.listJson

/**
 * DELETE /webhook_endpoints/{id}: no further deliveries to it (deliveries already under way
 * finish). 200 `{object, id, deleted: true}`.
 *
 * @since 0.1.0
 */
export const remove = (context: Operation.RequestContext, id: string) =>
  Operation.run({
    context,
    route: "DELETE /webhook_endpoints/{id}",
    canonical: { id },
    resource: "webhook endpoint",
    decide: Effect.gen(function*() {
      const endpoint = yield* load(context.principal, id)
      const now = yield* Clock.currentTimeMillis
      return {
        response: ApiResponse.json(200, { object: "webhook_endpoint", id, deleted: true }, context.requestId),
        writes: [Write.update(table, { ...endpoint, status: "deleted" as const, updatedAt: now, version: endpoint.version + 1 }, endpoint.version)]
      }
    })
  })

/**
 * The endpoint after a rotation to the secret `encrypted`: it signs from `now` on; the ones
 * that signed before keep signing beside it until `now + graceMillis` (Standard Webhooks
 * carries one signature per secret), so receivers switch without losing a delivery.
 *
 * @since 0.1.0
 */
export const rotated = (endpoint: WebhookEndpointRecord, encrypted: string, now: number, graceMillis: number): WebhookEndpointRecord => ({
  ...endpoint,
  secrets: [
    { encrypted, expiresAt: null },
    ...endpoint.secrets
      .filter((s) => s.expiresAt === null || s.expiresAt > now)
      .map((s) => ({ ...s, expiresAt: s.expiresAt === null ? now + graceMillis : Math.min(s.expiresAt, now + graceMillis) }))
      .filter((s) => s.expiresAt > now)
  ],
  updatedAt: now,
  version: endpoint.version + 1
})

/**
 * Rotate an endpoint's secret (for the host's own dashboard; merchants use
 * `POST /webhook_endpoints/{id}/rotate_secret`): the new secret, returned this once; the old
 * one keeps signing beside it for `graceMillis` (default 24 h).
 *
 * @since 0.1.0
 */
export const rotateSecret = (scope: Scope, id: string, graceMillis = 24 * 60 * 60 * 1000) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const config = yield* WebhookConfig
    const found = yield* storage.get(table, scope, id)
    if (Option.isNone(found) || found.value.status === "deleted") return yield* notFound(id)
    const secret = WebhookSignature.newSecret()
    const now = yield* Clock.currentTimeMillis
    yield* storage.commit([Write.update(table, rotated(found.value, config.encrypt(secret), now, graceMillis), found.value.version)])
    return secret
  })

/**
 * The endpoints of a merchant and environment that want `type`. Bounded: a merchant has a
 * handful of endpoints.
 *
 * @since 0.1.0
 */
export const subscribed = (scope: Scope) =>
  Effect.map(
    Effect.flatMap(Storage, (s) => s.list<WebhookEndpointRecord>(table, { ...scope, where: { status: "enabled" }, limit: 100 })),
    (endpoints) => (type: string) => endpoints.filter((e) => wants(e, type))
  )
