/**
 * What the merchant operations of every stored resource (payment, top-up and payout intents,
 * refunds) share: the caller's scope, one resource by id (a malformed id is a 400 answered
 * without a storage round trip, D1; another merchant's or environment's the same 404 as a
 * missing one, 4.2), a list page (4.3, D6), and the original a repeated `merchant_reference`
 * answers with (4.9 merchant_reference rule 2).
 */
import { Effect, Option } from "effect"
import * as ApiResponse from "../../requests/ApiResponse.js"
import type { Principal } from "../../requests/Authentication.js"
import { fingerprint, nonEmpty } from "../../requests/Canonical.js"
import * as Operation from "../../requests/Operation.js"
import type { ListQuery, ResourceType } from "../../storage/Storage.js"
import { scopeOf, Storage } from "../../storage/Storage.js"
import type { StoredRecord, Table } from "../../storage/Table.js"
import type { ApiError } from "../Errors.js"
import { ResourceNotFound, ValidationFailed } from "../Errors.js"
import { IdGenerator, isWellFormed } from "../Ids.js"
import * as Pagination from "../Pagination.js"
import * as RenderedView from "../RenderedView.js"

/** A stored resource and how messages name it: `payout intent`. */
export interface Kind<A extends StoredRecord> {
  readonly table: Table<A>
  readonly noun: string
}

/** The 404 of an id the caller cannot see (4.2). */
export const notFound = (noun: string, id: string) => new ResourceNotFound({ param: "id", message: `No ${noun} ${JSON.stringify(id)}.` })

/** The resource `id` names in the caller's scope. */
export const load = <A extends StoredRecord>(kind: Kind<A>, principal: Principal, id: string) =>
  Effect.gen(function*() {
    if (!isWellFormed(kind.table.idPrefix, id)) {
      return yield* ValidationFailed.at("id", `id must be a ${kind.noun} id: ${kind.table.idPrefix} followed by 24 letters and digits`)
    }
    const found = yield* (yield* Storage).get(kind.table, scopeOf(principal), id)
    if (Option.isNone(found)) return yield* notFound(kind.noun, id)
    return found.value
  })

/**
 * One page of `table` in the caller's scope, newest first, filtered by `where` of the
 * `status` values it parsed from `statuses`. Checked in order: the page window, the status
 * values, then the list's own filters.
 */
export const listPage = <A extends StoredRecord, S extends string, R, B>(
  table: Table<A>,
  principal: Principal,
  params: Parameters<typeof Pagination.window>[0] & { readonly status?: string | ReadonlyArray<string> | undefined },
  statuses: ReadonlyArray<S>,
  view: (record: A) => B,
  where: (status: ReadonlyArray<S> | undefined) => Effect.Effect<ListQuery<A>["where"], ValidationFailed, R>
) =>
  Effect.gen(function*() {
    const { limit, query } = yield* Pagination.window(params, table.idPrefix)
    const filters = yield* where(yield* Pagination.parseValues("status", params.status, statuses))
    const rows = yield* (yield* Storage).list(table, { ...scopeOf(principal), ...query, where: filters })
    return Pagination.page(rows, limit, view)
  })

/** The 200 a repeated `merchant_reference` answers with: the resource it created first, shown by `view` (4.9). */
export const original = <A extends StoredRecord, B>(
  storage: Storage["Type"],
  kind: Kind<A>,
  context: { readonly principal: Principal; readonly requestId: string },
  view: (record: A) => B
) =>
(originalId: string) =>
  storage.get(kind.table, scopeOf(context.principal), originalId).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.dieMessage(`merchant_reference points at missing ${kind.noun} ${originalId}`),
      onSome: (found) => Effect.succeed(ApiResponse.json(200, view(found), context.requestId))
    }))
  )

/**
 * The `reference` of `Operation.run` for a create under `claim.reference` (4.9, D4): none
 * without one; a repeat answers with the original (`original`), shown by `view`.
 */
export const reference = <A extends StoredRecord, B>(
  storage: Storage["Type"],
  kind: Kind<A>,
  context: { readonly principal: Principal; readonly requestId: string },
  view: (record: A) => B,
  claim: { readonly resourceType: ResourceType; readonly reference: string | undefined; readonly fingerprint: string; readonly resourceId: string }
) => claim.reference === undefined ? undefined : { ...claim, reference: claim.reference, original: original(storage, kind, context, view) }

/**
 * A create body as a repeated `merchant_reference` must match it (4.9 merchant_reference rules 3
 * and 4, D5): every field but the reference itself, an empty `metadata` the same as none.
 */
const referencedFields = <P extends { readonly merchant_reference?: string | undefined; readonly metadata?: object | undefined }>(params: P) => {
  const { merchant_reference: _reference, ...fields } = params
  return { ...fields, metadata: nonEmpty(params.metadata) }
}

/**
 * The creates of a resource of `kind` under `merchant_reference` (4.9, D4), each run to its
 * answer: the new resource's id (its table's prefix), the route and the canonical request the key
 * is checked against (`params`), the fingerprint of its fields (`referencedFields`), and the
 * original a repeated reference with the same fingerprint answers with, shown by `view`.
 * `decide` builds the resource with that id and fingerprint.
 */
export const createUnderReference = <A extends StoredRecord, B>(
  kind: Kind<A>,
  view: (record: A) => B,
  create: { readonly route: string; readonly resourceType: ResourceType }
) =>
<P extends { readonly merchant_reference?: string | undefined; readonly metadata?: object | undefined }, R>(
  context: Operation.RequestContext,
  params: P,
  decide: (id: string, fingerprint: string) => Effect.Effect<Operation.Decision, ApiError, R>
) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const resourceId = yield* (yield* IdGenerator).make(kind.table.idPrefix)
    const fields = referencedFields(params)
    const fp = fingerprint(fields)
    const merchantReference = params.merchant_reference
    return yield* Operation.run({
      context,
      route: create.route,
      canonical: { merchant_reference: merchantReference, ...fields },
      resource: kind.noun,
      reference: reference(storage, kind, context, view, { resourceType: create.resourceType, reference: merchantReference, fingerprint: fp, resourceId }),
      decide: decide(resourceId, fp)
    })
  })

/** A list page of views, as `Pagination.page` makes it. */
type Page<V> = { readonly data: ReadonlyArray<V>; readonly has_more: boolean; readonly next_cursor: string | null }

/**
 * A resource's two reads in both forms: as views (`retrieve`, `list`, for the Promise API and
 * in-process callers) and as the JSON text the HTTP binding sends (`retrieveJson`, `listJson`),
 * each record rendered once (`RenderedView`) rather than encoded field by field per read. Every
 * resource reads this one way.
 */
export const reads = <A extends object, B, P, E1, R1, E2, R2>(
  load: (principal: Principal, id: string) => Effect.Effect<A, E1, R1>,
  listWith: <V>(view: (record: A) => V) => (principal: Principal, params: P) => Effect.Effect<Page<V>, E2, R2>,
  view: (record: A) => B,
  json: (record: A) => string = RenderedView.json(view)
) => ({
  retrieve: (principal: Principal, id: string) => Effect.map(load(principal, id), view),
  retrieveJson: (principal: Principal, id: string) => Effect.map(load(principal, id), json),
  list: listWith(view),
  listJson: (principal: Principal, params: P) => Effect.map(listWith(json)(principal, params), Pagination.pageJson)
})

/**
 * `reads` of a stored resource of `kind`: one by id (`load`) and a list page (`listPage`) of the
 * records `where` selects from the list's `params` and the `status` values parsed from them.
 */
export const kindReads = <A extends StoredRecord, S extends string, P extends Parameters<typeof listPage>[2], R, B>(
  kind: Kind<A>,
  statuses: ReadonlyArray<S>,
  where: (params: P, status: ReadonlyArray<S> | undefined) => Effect.Effect<ListQuery<A>["where"], ValidationFailed, R>,
  view: (record: A) => B
) =>
  reads(
    (principal, id: string) => load(kind, principal, id),
    (v) => (principal, params: P) => listPage(kind.table, principal, params, statuses, v, (status) => where(params, status)),
    view
  )
