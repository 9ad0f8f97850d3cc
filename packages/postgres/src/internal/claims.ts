/**
 * Claims: `begin` reserves the idempotency key and the merchant_reference together (what no
 * request can use any more is deleted by `purge.ts`). Also the fenced conditions a commit uses
 * to complete or release a claim only while this request holds it.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment, Identifier } from "@effect/sql/Statement"
import type { ReplayCache, Storage, StorageError } from "@tender/core"
import { Effect } from "effect"
import type { Run } from "./direct.js"
import { fold } from "./errors.js"
import { millisColumn, timestamp } from "./records.js"
import type { Tables } from "./tables.js"
import * as Timeout from "./timeout.js"

interface KeyRow {
  readonly fingerprint: string
  readonly expires_at: string
  readonly locked_until: string
  readonly response_status: number | null
  readonly response_body: string | null
  readonly response_request_id: string | null
}

interface ReferenceRow {
  readonly fingerprint: string
  readonly resource_id: string
  readonly locked_until: string
  readonly completed: boolean
}

/** What the claims of one adapter instance work on: its client (without name transforms), tables and bounds. */
interface Claims {
  readonly sql: SqlClient
  readonly REF: Identifier
  readonly KEY: Identifier
  readonly keyColumns: Fragment
  readonly refColumns: Fragment
  readonly run: Run
  readonly statementMillis: number
  readonly replays: ReplayCache.ReplayCache | undefined
}

// -- begin: reserve the idempotency key and the merchant_reference --
//
// A fresh key and reference (the common case) are claimed by one INSERT ... ON CONFLICT DO
// NOTHING each, in one statement: one round trip. Only a row that exists already is judged,
// in a transaction, under a row lock. ON CONFLICT waits for a concurrent insert of the same
// key to commit, so a judged row is always a committed one. The reference is claimed there
// only together with a fresh key: a key that exists answers first, and a request it refuses
// must never hold the reference, not even for a moment.

const insertKey = ({ KEY, sql }: Claims, c: Storage.IdempotencyClaim) =>
  sql`INSERT INTO ${KEY} (api_key_id, key, fingerprint, expires_at, locked_until)
    VALUES (${c.apiKeyId}, ${c.key}, ${c.fingerprint}, ${timestamp(c.expiresAt)}, ${timestamp(c.lockedUntil)})
    ON CONFLICT DO NOTHING RETURNING 1`

/** The reference claim, made only when `condition` holds (evaluated in the statement's own snapshot). */
const insertReference = ({ REF, sql }: Claims, c: Storage.ReferenceClaim, condition: Fragment = sql`true`) =>
  sql`INSERT INTO ${REF} (merchant_id, environment, resource_type, reference, fingerprint, resource_id, locked_until)
    SELECT ${c.merchantId}, ${c.environment}, ${c.resourceType}, ${c.reference}, ${c.fingerprint}, ${c.resourceId}, ${timestamp(c.lockedUntil)}::timestamptz
    WHERE ${condition}
    ON CONFLICT DO NOTHING RETURNING 1`

/**
 * Claim both in one statement; says which were fresh and, when the key was not, how the key
 * row read at the statement's start. A completed key never changes until it expires (only its
 * in-flight holder releases a key), so a replay or a conflict can be answered from that read.
 */
const claimFresh = (cx: Claims, req: Storage.BeginRequest) => {
  const { KEY, keyColumns, sql } = cx
  const k = req.idempotency
  return Effect.map(
    cx.run(
      "begin",
      sql<{ readonly key: number; readonly reference: number } & Partial<KeyRow>>`WITH
      k AS (${k === undefined ? sql`SELECT 1 WHERE false` : insertKey(cx, k)}),
      r AS (${
        req.reference === undefined
          ? sql`SELECT 1 WHERE false`
          : k === undefined
          ? insertReference(cx, req.reference)
          : insertReference(cx, req.reference, sql`EXISTS (SELECT 1 FROM k)`)
      })
      SELECT (SELECT count(*) FROM k)::int AS key, (SELECT count(*) FROM r)::int AS reference${
        k === undefined
          ? sql``
          : sql`, e.* FROM (SELECT 1) AS one
          LEFT JOIN (SELECT ${keyColumns} FROM ${KEY} WHERE api_key_id = ${k.apiKeyId} AND key = ${k.key}) AS e ON true`
      }`
    ),
    ([row]) => ({
      key: k === undefined || (row?.key ?? 0) > 0,
      reference: req.reference === undefined || (row?.reference ?? 0) > 0,
      existing: row?.fingerprint === undefined || row.fingerprint === null ? undefined : (row as KeyRow)
    })
  )
}

/** What a live key row answers without a lock, if anything: a replay or a conflict. */
const settledKey = (replays: ReplayCache.ReplayCache | undefined, c: Storage.IdempotencyClaim, row: KeyRow | undefined, now: number) => {
  if (row === undefined || Number(row.expires_at) <= now) return undefined
  if (row.fingerprint !== c.fingerprint) return { _tag: "KeyConflict" } as const
  return row.response_status === null ? undefined : replayOf(replays, c, row)
}

/** The replay of a completed key read for `c` (same fingerprint), kept for the next request with it. */
const replayOf = (replays: ReplayCache.ReplayCache | undefined, c: Storage.IdempotencyClaim, row: KeyRow) => {
  const response = { status: row.response_status ?? 0, body: row.response_body ?? "", requestId: row.response_request_id ?? "" }
  replays?.keep(c, Number(row.expires_at), response)
  return { _tag: "Replay", response } as const
}

/** Judge an existing key under a lock: refuse, or take over an expired or lapsed one. */
const judgeKey = (
  cx: Claims,
  c: Storage.IdempotencyClaim,
  now: number
): Effect.Effect<ReturnType<typeof replayOf> | { readonly _tag: "KeyConflict" | "KeyInFlight" } | undefined, SqlError> =>
  Effect.gen(function*() {
    const { KEY, keyColumns, sql } = cx
    const [row] = yield* sql<KeyRow>`SELECT ${keyColumns} FROM ${KEY}
      WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key} FOR UPDATE`
    if (row === undefined) {
      // Released between the insert and this read: claim it now. FOR UPDATE locks no missing row, so
      // a concurrent begin may have claimed it first (this insert then waited for it): judge that claim.
      const inserted = yield* insertKey(cx, c)
      return inserted.length > 0 ? undefined : yield* judgeKey(cx, c, now)
    }
    if (Number(row.expires_at) > now) {
      if (row.fingerprint !== c.fingerprint) return { _tag: "KeyConflict" } as const
      if (row.response_status !== null) return replayOf(cx.replays, c, row)
      if (Number(row.locked_until) > now) return { _tag: "KeyInFlight" } as const
    }
    yield* sql`UPDATE ${KEY} SET fingerprint = ${c.fingerprint}, expires_at = ${timestamp(c.expiresAt)},
      locked_until = ${timestamp(c.lockedUntil)}, response_status = NULL, response_body = NULL, response_request_id = NULL
      WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key}`
    return undefined
  })

const referenceKey = (sql: SqlClient, r: Storage.ReferenceId) =>
  sql`merchant_id = ${r.merchantId} AND environment = ${r.environment} AND resource_type = ${r.resourceType} AND reference = ${r.reference}`

/** Judge an existing reference under a lock: taken, or take over a lapsed claim. */
const judgeReference = (
  cx: Claims,
  c: Storage.ReferenceClaim,
  now: number
): Effect.Effect<Extract<Storage.BeginOutcome, { readonly _tag: "ReferenceTaken" }> | undefined, SqlError> =>
  Effect.gen(function*() {
    const { REF, refColumns, sql } = cx
    const [row] = yield* sql<ReferenceRow>`SELECT ${refColumns} FROM ${REF} WHERE ${referenceKey(sql, c)} FOR UPDATE`
    if (row === undefined) {
      // As for keys: a concurrent begin may have claimed it between this read and the insert.
      const inserted = yield* insertReference(cx, c)
      return inserted.length > 0 ? undefined : yield* judgeReference(cx, c, now)
    }
    if (row.completed || Number(row.locked_until) > now) {
      return {
        _tag: "ReferenceTaken",
        resourceId: row.resource_id,
        sameFingerprint: row.fingerprint === c.fingerprint,
        inFlight: !row.completed
      } as const
    }
    yield* sql`UPDATE ${REF} SET fingerprint = ${c.fingerprint}, resource_id = ${c.resourceId},
      locked_until = ${timestamp(c.lockedUntil)}, completed = false WHERE ${referenceKey(sql, c)}`
    return undefined
  })

/** Give back a key this begin claimed fresh, unless something else has happened to it since. */
const releaseFreshKey = ({ KEY, sql }: Claims, c: Storage.IdempotencyClaim) =>
  sql`DELETE FROM ${KEY} WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key} AND fingerprint = ${c.fingerprint}
    AND locked_until = ${timestamp(c.lockedUntil)} AND response_status IS NULL`

/**
 * The rare transaction of a begin whose key or reference was not fresh: keys are judged before
 * references, always, so two begins never wait on each other in a cycle.
 */
const judged = (cx: Claims, req: Storage.BeginRequest, fresh: { readonly key: boolean; readonly reference: boolean }) =>
  // Uninterruptible, as every statement of a transaction (direct.ts, `through`): the server ends it
  // at the statement timeout, and no cancel of `@effect/sql-pg` can outlive it.
  cx.sql.withTransaction(Effect.uninterruptible(Effect.gen(function*() {
    // A host's pool has no statement_timeout of Tender's: this transaction's row locks are bounded here.
    yield* cx.sql.unsafe(`SET LOCAL statement_timeout = ${cx.statementMillis}`)
    if (!fresh.key && req.idempotency !== undefined) {
      const refused = yield* judgeKey(cx, req.idempotency, req.now)
      if (refused !== undefined) return refused
    }
    if (!fresh.reference && req.reference !== undefined) {
      const taken = yield* judgeReference(cx, req.reference, req.now)
      if (taken !== undefined) return taken
    }
    return { _tag: "Proceed" } as const
  })))

const begin = (cx: Claims, req: Storage.BeginRequest): Effect.Effect<Storage.BeginOutcome, StorageError.StorageError> =>
  Effect.gen(function*() {
    const { statementMillis } = cx
    const started = Date.now()
    const fresh = yield* claimFresh(cx, req)
    if (fresh.key && fresh.reference) return { _tag: "Proceed" } as const
    // A key that was not fresh: the reference was not claimed (claimFresh claims it only with a fresh key).
    const settled = fresh.key || req.idempotency === undefined ? undefined : settledKey(cx.replays, req.idempotency, fresh.existing, req.now)
    if (settled !== undefined) return settled
    const left = Math.max(1, statementMillis - (Date.now() - started))
    const judging = Timeout.bound(left, statementMillis)("begin", judged(cx, req, fresh))
    // The begin fails (a 5xx): a key it claimed fresh is given back before the answer, so a retry
    // reaches a fresh handler (4.9.7). Best effort: if the store is down, the claim lapses instead.
    // The answer waits for the release only as long as the begin's statement timeout has left;
    // past that the release goes on in the background.
    const claimedKey = fresh.key ? req.idempotency : undefined
    return yield* claimedKey === undefined
      ? judging
      : Effect.tapError(judging, () =>
        Effect.ignore(
          Timeout.bound(Math.max(1, statementMillis - (Date.now() - started)), statementMillis)(
            "release key",
            cx.run("release key", releaseFreshKey(cx, claimedKey))
          )
        ))
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(fold("begin")(e))))

/** The key as this claim holds it, unanswered. */
const heldKey = (sql: SqlClient, k: Storage.HeldKey) =>
  sql`api_key_id = ${k.apiKeyId} AND key = ${k.key} AND locked_until = ${timestamp(k.lockedUntil)}::timestamptz
    AND response_status IS NULL`

/** The reference as held for one resource. */
const heldReference = (sql: SqlClient, r: Storage.HeldReference) => sql`${referenceKey(sql, r)} AND resource_id = ${r.resourceId}`

/**
 * The claims of one adapter instance, on its client (without name transforms) and tables. Its
 * statements run by `run` (internal/direct.ts), bounded by the statement timeout, `statementMillis`;
 * a begin answers within that timeout in all (its rare transaction gets what the claim left of it).
 * `statementMillis` bounds that transaction's statements on the server too. Every completed key a
 * begin reads is kept in `replays` (core `ReplayCache`), which answers the next request with that
 * key before a statement is made.
 */
export const make = (sql: SqlClient, t: Tables, run: Run, statementMillis: number, replays?: ReplayCache.ReplayCache) => {
  const cx: Claims = {
    sql,
    REF: sql(t.references),
    KEY: sql(t.idempotencyKeys),
    keyColumns: sql.literal(
      `fingerprint, ${millisColumn("expires_at")}, ${millisColumn("locked_until")}, response_status, response_body, response_request_id`
    ),
    refColumns: sql.literal(`fingerprint, resource_id, ${millisColumn("locked_until")}, completed`),
    run,
    statementMillis,
    replays
  }
  return {
    begin: (req: Storage.BeginRequest) => begin(cx, req),
    heldKey: (k: Storage.HeldKey) => heldKey(sql, k),
    heldReference: (r: Storage.HeldReference) => heldReference(sql, r)
  }
}
