/**
 * The PostgreSQL storage adapter: `Storage` and `Merchants` on the host's `SqlClient`
 * (`@effect/sql-pg`). Correctness comes from the database: primary keys and unique
 * indexes for ids and merchant_reference, `INSERT ... ON CONFLICT` and row locks for
 * claims, one transaction per step. Any number of processes may share one database.
 *
 * @since 0.1.0
 */
import { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Errors, Merchant, Storage } from "@tender/core"
import type { PaymentIntent } from "@tender/core"
import type { MigrationError } from "@effect/sql/Migrator"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { fold } from "./internal/errors.js"
import type { ApiKeyRow, MerchantRow, PaymentIntentRow } from "./internal/rows.js"
import {
  apiKeyColumns,
  credentialColumns,
  paymentIntentColumns,
  paymentIntentValues,
  timestamp,
  toApiKey,
  toMerchant,
  toPaymentIntentRecord
} from "./internal/rows.js"
import { listStatement } from "./internal/queries.js"
import { tables, validatePrefix } from "./internal/tables.js"
import * as PgMigrations from "./PgMigrations.js"

/** @since 0.1.0 @category models */
export interface PgStorageOptions {
  /** Prefix of every table Tender uses. Default `tender_`. */
  readonly tablePrefix?: string | undefined
}

type Sql = SqlClient

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

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::bigint::text AS ${column}`

/**
 * Build the `Storage` and `Merchants` services on the provided `SqlClient`. Does not
 * migrate: run `PgMigrations.run` first (or use `layer`, which does).
 *
 * @since 0.1.0 @category constructors
 */
export const make = (options: PgStorageOptions = {}) =>
  Effect.gen(function*() {
    const prefix = yield* validatePrefix(options.tablePrefix)
    // Tender reads and writes its own column names: the host's name transforms must not apply.
    const sql: Sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    const PI = sql(t.paymentIntents)
    const REF = sql(t.references)
    const KEY = sql(t.idempotencyKeys)
    const MER = sql(t.merchants)
    const APIKEY = sql(t.apiKeys)
    const keyColumns = sql.literal(`fingerprint, ${ms("expires_at")}, ${ms("locked_until")}, response_status, response_body, response_request_id`)
    const refColumns = sql.literal(`fingerprint, resource_id, ${ms("locked_until")}, completed`)
    const piColumns = sql.literal(paymentIntentColumns)

    // -- begin: reserve the idempotency key and the merchant_reference --
    //
    // A fresh key and reference (the common case) are claimed by one INSERT ... ON CONFLICT DO
    // NOTHING each, in one statement: one round trip. Only a row that exists already is judged,
    // in a transaction, under a row lock. ON CONFLICT waits for a concurrent insert of the same
    // key to commit, so a judged row is always a committed one. The reference is claimed there
    // only together with a fresh key: a key that exists answers first, and a request it refuses
    // must never hold the reference, not even for a moment.

    const insertKey = (c: Storage.IdempotencyClaim) =>
      sql`INSERT INTO ${KEY} (api_key_id, key, fingerprint, expires_at, locked_until)
        VALUES (${c.apiKeyId}, ${c.key}, ${c.fingerprint}, ${timestamp(c.expiresAt)}, ${timestamp(c.lockedUntil)})
        ON CONFLICT DO NOTHING RETURNING 1`

    /** The reference claim, made only when `condition` holds (evaluated in the statement's own snapshot). */
    const insertReference = (c: Storage.ReferenceClaim, condition: Fragment = sql`true`) =>
      sql`INSERT INTO ${REF} (merchant_id, environment, resource_type, reference, fingerprint, resource_id, locked_until)
        SELECT ${c.merchantId}, ${c.environment}, ${c.resourceType}, ${c.reference}, ${c.fingerprint}, ${c.resourceId}, ${timestamp(c.lockedUntil)}::timestamptz
        WHERE ${condition}
        ON CONFLICT DO NOTHING RETURNING 1`

    /**
     * Claim both in one statement; says which were fresh and, when the key was not, how the key
     * row read at the statement's start. A completed key never changes until it expires (only its
     * in-flight holder releases a key), so a replay or a conflict can be answered from that read.
     */
    const claimFresh = (req: Storage.BeginRequest) => {
      const k = req.idempotency
      return Effect.map(
        sql<{ readonly key: number; readonly reference: number } & Partial<KeyRow>>`WITH
          k AS (${k === undefined ? sql`SELECT 1 WHERE false` : insertKey(k)}),
          r AS (${
          req.reference === undefined
            ? sql`SELECT 1 WHERE false`
            : k === undefined
            ? insertReference(req.reference)
            : insertReference(req.reference, sql`EXISTS (SELECT 1 FROM k)`)
        })
          SELECT (SELECT count(*) FROM k)::int AS key, (SELECT count(*) FROM r)::int AS reference${
          k === undefined
            ? sql``
            : sql`, e.* FROM (SELECT 1) AS one
              LEFT JOIN (SELECT ${keyColumns} FROM ${KEY} WHERE api_key_id = ${k.apiKeyId} AND key = ${k.key}) AS e ON true`
        }`,
        ([row]) => ({
          key: k === undefined || (row?.key ?? 0) > 0,
          reference: req.reference === undefined || (row?.reference ?? 0) > 0,
          existing: row?.fingerprint === undefined || row.fingerprint === null ? undefined : (row as KeyRow)
        })
      )
    }

    /** What a live key row answers without a lock, if anything: a replay or a conflict. */
    const settledKey = (c: Storage.IdempotencyClaim, row: KeyRow | undefined, now: number) => {
      if (row === undefined || Number(row.expires_at) <= now) return undefined
      if (row.fingerprint !== c.fingerprint) return { _tag: "KeyConflict" } as const
      return row.response_status === null ? undefined : replayOf(row)
    }

    const replayOf = (row: KeyRow) =>
      ({
        _tag: "Replay",
        response: { status: row.response_status ?? 0, body: row.response_body ?? "", requestId: row.response_request_id ?? "" }
      }) as const

    /** Judge an existing key under a lock: refuse, or take over an expired or lapsed one. */
    const judgeKey = (
      c: Storage.IdempotencyClaim,
      now: number
    ): Effect.Effect<ReturnType<typeof replayOf> | { readonly _tag: "KeyConflict" | "KeyInFlight" } | undefined, SqlError> =>
      Effect.gen(function*() {
        const [row] = yield* sql<KeyRow>`SELECT ${keyColumns} FROM ${KEY}
          WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key} FOR UPDATE`
        if (row === undefined) {
          // Released between the insert and this read: claim it now. FOR UPDATE locks no missing row, so
          // a concurrent begin may have claimed it first (this insert then waited for it): judge that claim.
          const inserted = yield* insertKey(c)
          return inserted.length > 0 ? undefined : yield* judgeKey(c, now)
        }
        if (Number(row.expires_at) > now) {
          if (row.fingerprint !== c.fingerprint) return { _tag: "KeyConflict" } as const
          if (row.response_status !== null) return replayOf(row)
          if (Number(row.locked_until) > now) return { _tag: "KeyInFlight" } as const
        }
        yield* sql`UPDATE ${KEY} SET fingerprint = ${c.fingerprint}, expires_at = ${timestamp(c.expiresAt)},
          locked_until = ${timestamp(c.lockedUntil)}, response_status = NULL, response_body = NULL, response_request_id = NULL
          WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key}`
        return undefined
      })

    const referenceKey = (r: Storage.ReferenceId) =>
      sql`merchant_id = ${r.merchantId} AND environment = ${r.environment} AND resource_type = ${r.resourceType} AND reference = ${r.reference}`

    /** Judge an existing reference under a lock: taken, or take over a lapsed claim. */
    const judgeReference = (
      c: Storage.ReferenceClaim,
      now: number
    ): Effect.Effect<Extract<Storage.BeginOutcome, { readonly _tag: "ReferenceTaken" }> | undefined, SqlError> =>
      Effect.gen(function*() {
        const [row] = yield* sql<ReferenceRow>`SELECT ${refColumns} FROM ${REF} WHERE ${referenceKey(c)} FOR UPDATE`
        if (row === undefined) {
          // As for keys: a concurrent begin may have claimed it between this read and the insert.
          const inserted = yield* insertReference(c)
          return inserted.length > 0 ? undefined : yield* judgeReference(c, now)
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
          locked_until = ${timestamp(c.lockedUntil)}, completed = false WHERE ${referenceKey(c)}`
        return undefined
      })

    /** Give back a key this begin claimed fresh, unless something else has happened to it since. */
    const releaseFreshKey = (c: Storage.IdempotencyClaim) =>
      sql`DELETE FROM ${KEY} WHERE api_key_id = ${c.apiKeyId} AND key = ${c.key} AND fingerprint = ${c.fingerprint}
        AND locked_until = ${timestamp(c.lockedUntil)} AND response_status IS NULL`

    const begin = (req: Storage.BeginRequest): Effect.Effect<Storage.BeginOutcome, SqlError> =>
      Effect.gen(function*() {
        const fresh = yield* claimFresh(req)
        if (fresh.key && fresh.reference) return { _tag: "Proceed" } as const
        // A key that was not fresh: the reference was not claimed (claimFresh claims it only with a fresh key).
        const settled = fresh.key || req.idempotency === undefined ? undefined : settledKey(req.idempotency, fresh.existing, req.now)
        if (settled !== undefined) return settled
        // Keys are judged before references, always, so two begins never wait on each other in a cycle.
        const judged = sql.withTransaction(Effect.gen(function*() {
          if (!fresh.key && req.idempotency !== undefined) {
            const refused = yield* judgeKey(req.idempotency, req.now)
            if (refused !== undefined) return refused
          }
          if (!fresh.reference && req.reference !== undefined) {
            const taken = yield* judgeReference(req.reference, req.now)
            if (taken !== undefined) return taken
          }
          return { _tag: "Proceed" } as const
        }))
        // The begin fails (a 5xx): a key it claimed fresh is given back, so a retry reaches a fresh
        // handler (4.9.7). Best effort: if the store is down, the claim lapses instead.
        const claimedKey = fresh.key ? req.idempotency : undefined
        return yield* claimedKey === undefined
          ? judged
          : Effect.tapError(judged, () => Effect.ignore(releaseFreshKey(claimedKey)))
      })

    // -- commit: one state change and everything it causes, in one transaction --

    const insertIntent = (p: PaymentIntent.PaymentIntentRecord) => {
      const v = paymentIntentValues(p)
      return sql`INSERT INTO ${PI} (id, merchant_id, environment, amount, currency, country, checkout_mode, status,
          merchant_reference, payment_method, next_action, failure_code, failure_message, processing_reason, receipt,
          customer, payment_method_options, return_url, device_fingerprint, metadata, external_reference, provider_code,
          provider_payment_id, fingerprint, created_at, updated_at, version)
        VALUES (${v[0]}, ${v[1]}, ${v[2]}, ${v[3]}, ${v[4]}, ${v[5]}, ${v[6]}, ${v[7]}, ${v[8]}, ${v[9]}, ${v[10]}, ${v[11]},
          ${v[12]}, ${v[13]}, ${v[14]}, ${v[15]}, ${v[16]}, ${v[17]}, ${v[18]}, ${v[19]}, ${v[20]}, ${v[21]}, ${v[22]},
          ${v[23]}, ${v[24]}, ${v[25]}, ${v[26]})`
    }

    const updateIntent = (p: PaymentIntent.PaymentIntentRecord, expectedVersion: number) =>
      Effect.gen(function*() {
        const v = paymentIntentValues(p)
        const updated = yield* sql`UPDATE ${PI} SET amount = ${v[3]}, currency = ${v[4]}, country = ${v[5]},
            checkout_mode = ${v[6]}, status = ${v[7]}, merchant_reference = ${v[8]}, payment_method = ${v[9]},
            next_action = ${v[10]}, failure_code = ${v[11]}, failure_message = ${v[12]}, processing_reason = ${v[13]},
            receipt = ${v[14]}, customer = ${v[15]}, payment_method_options = ${v[16]}, return_url = ${v[17]},
            device_fingerprint = ${v[18]}, metadata = ${v[19]}, external_reference = ${v[20]}, provider_code = ${v[21]},
            provider_payment_id = ${v[22]}, fingerprint = ${v[23]}, updated_at = ${v[25]}, version = ${v[26]}
          WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND environment = ${p.environment} AND version = ${expectedVersion}
          RETURNING 1 AS updated`
        if (updated.length === 0) {
          return yield* new Errors.StorageError({ message: `stale update of ${p.id}`, reason: "StaleVersion" })
        }
      })

    const referenceWhere = (r: Storage.ReferenceId & { readonly resourceId: string }) =>
      sql`${referenceKey(r)} AND resource_id = ${r.resourceId}`

    /** The key as this claim holds it, unanswered. */
    const heldKey = (k: Storage.HeldKey) =>
      sql`api_key_id = ${k.apiKeyId} AND key = ${k.key} AND locked_until = ${timestamp(k.lockedUntil)}::timestamptz
        AND response_status IS NULL`

    /**
     * The preconditions of a commit, each a write that must touch its row: completing the
     * reference (still held by this resource) and storing the key's response (still held by
     * this claim). `lost` names the error when it touches none.
     */
    const guards = (c: Storage.Commit) => [
      ...(c.completeReference !== undefined
        ? [{
          name: "g_reference",
          statement: sql`UPDATE ${REF} SET completed = true WHERE ${referenceWhere(c.completeReference)} RETURNING 1`,
          lost: referenceLost(c.completeReference)
        }]
        : []),
      ...(c.completeIdempotency !== undefined
        ? [{
          name: "g_key",
          statement: sql`UPDATE ${KEY} SET response_status = ${c.completeIdempotency.response.status},
              response_body = ${c.completeIdempotency.response.body}, response_request_id = ${c.completeIdempotency.response.requestId}
            WHERE ${heldKey(c.completeIdempotency)} RETURNING 1`,
          lost: keyLost()
        }]
        : [])
    ]

    /** Every other write of a commit (not the versioned update), each a statement of its own. */
    const writes = (c: Storage.Commit) => [
      ...(c.insertPaymentIntent !== undefined ? [insertIntent(c.insertPaymentIntent)] : []),
      ...(c.releaseReference !== undefined
        ? [sql`DELETE FROM ${REF} WHERE ${referenceWhere(c.releaseReference)} AND NOT completed`]
        : []),
      ...(c.releaseIdempotency !== undefined ? [sql`DELETE FROM ${KEY} WHERE ${heldKey(c.releaseIdempotency)}`] : [])
    ]

    /** A reference completed by a resource that no longer holds it: the commit is refused whole. */
    const referenceLost = (r: Storage.ReferenceId & { readonly resourceId: string }) =>
      new Errors.StorageError({ message: `merchant_reference is no longer held by ${r.resourceId}`, reason: "UniqueViolation" })

    /** A key completed by a claim a retry took over: the commit is refused whole. */
    const keyLost = () => new Errors.StorageError({ message: "the idempotency key was taken over by a retry", reason: "ClaimLost" })

    /** Raised inside a statement to abort it: the text names the guard that touched no row. */
    const abortMarker = "tender:precondition:"

    const commit = (c: Storage.Commit): Effect.Effect<void, Errors.StorageError> => {
      const checks = guards(c)
      const statements = writes(c)
      const run: Effect.Effect<unknown, SqlError | Errors.StorageError> = c.updatePaymentIntent !== undefined
        // A versioned update must see its row count: it, the guards and the rest run in a transaction.
        ? sql.withTransaction(Effect.gen(function*() {
          for (const g of checks) if ((yield* g.statement).length === 0) return yield* g.lost
          yield* updateIntent(c.updatePaymentIntent!.record, c.updatePaymentIntent!.expectedVersion)
          yield* Effect.forEach(statements, (s) => s, { discard: true })
        }))
        : checks.length === 0 && statements.length <= 1
        ? Effect.forEach(statements, (s) => s, { discard: true })
        // One statement, atomic by itself (one round trip): data-modifying CTEs always run to
        // completion, so a guard that touched no row aborts the whole statement with an error
        // (a cast that fails at run time), which undoes every write.
        : Effect.asVoid(sql`WITH ${
          sql.csv([
            ...checks.map((g) => sql`${sql(g.name)} AS (${g.statement})`),
            ...statements.map((s, i) => sql`${sql(`w${i}`)} AS (${s})`)
          ])
        } SELECT ${
          checks.length === 0
            ? sql`1`
            : sql`CASE ${
              sql.join(" ", false)(checks.map((g) =>
                sql`WHEN NOT EXISTS (SELECT 1 FROM ${sql(g.name)}) THEN (${`${abortMarker}${g.name}:`} || (SELECT count(*) FROM ${sql(g.name)}))::int`
              ))
            } ELSE 1 END`
        }`).pipe(
          Effect.catchTag("SqlError", (e): Effect.Effect<never, SqlError | Errors.StorageError> => {
            const message = e.cause instanceof Error ? e.cause.message : ""
            const lost = checks.find((g) => message.includes(`${abortMarker}${g.name}:`))
            return lost === undefined ? Effect.fail(e) : Effect.fail(lost.lost)
          })
        )
      return run.pipe(Effect.asVoid, Effect.catchTag("SqlError", (e) => Effect.fail(fold("commit")(e))))
    }

    // -- reads --

    const getPaymentIntent: Storage.Storage["Type"]["getPaymentIntent"] = (scope, id) =>
      sql<PaymentIntentRow>`SELECT ${piColumns} FROM ${PI}
        WHERE id = ${id} AND merchant_id = ${scope.merchantId} AND environment = ${scope.environment}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toPaymentIntentRecord)),
        Effect.mapError(fold("get payment intent"))
      )

    const listPaymentIntents: Storage.Storage["Type"]["listPaymentIntents"] = (q) =>
      listStatement(sql, t, q).pipe(
        Effect.map((rows) => rows.map(toPaymentIntentRecord)),
        Effect.mapError(fold("list payment intents"))
      )

    const storage = Storage.Storage.of({
      begin: (req) => Effect.mapError(begin(req), fold("begin")),
      commit,
      getPaymentIntent,
      listPaymentIntents,
      purgeExpired: (now) =>
        sql<{ readonly keys: number; readonly refs: number }>`WITH
          k AS (DELETE FROM ${KEY} WHERE expires_at <= ${timestamp(now)} RETURNING 1),
          r AS (DELETE FROM ${REF} WHERE NOT completed AND locked_until <= ${timestamp(now - Storage.claimGraceMillis)} RETURNING 1)
          SELECT (SELECT count(*) FROM k)::int AS keys, (SELECT count(*) FROM r)::int AS refs`.pipe(
          Effect.map(([row]) => ({ idempotencyKeys: row?.keys ?? 0, referenceClaims: row?.refs ?? 0 })),
          Effect.mapError(fold("purge expired"))
        )
    })

    // -- merchants and API keys --

    const merchants = Merchant.Merchants.of({
      findMerchant: (id) =>
        sql<MerchantRow>`SELECT id, name, allowed_checkout_modes::text AS allowed_checkout_modes, routes::text AS routes
          FROM ${MER} WHERE id = ${id}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toMerchant)),
          Effect.mapError(fold("find merchant"))
        ),
      findKeyByPublicKey: (publicKey) =>
        sql<ApiKeyRow>`SELECT ${sql.literal(apiKeyColumns)} FROM ${APIKEY} WHERE public_key = ${publicKey}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
          Effect.mapError(fold("find API key"))
        ),
      findCredentials: (publicKey) =>
        sql<ApiKeyRow & { readonly m_id: string; readonly m_name: string; readonly m_modes: string; readonly m_routes: string }>`
          SELECT ${sql.literal(credentialColumns)} FROM ${APIKEY} AS k JOIN ${MER} AS m ON m.id = k.merchant_id
          WHERE k.public_key = ${publicKey}`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (r) => ({
              apiKey: toApiKey(r),
              merchant: toMerchant({ id: r.m_id, name: r.m_name, allowed_checkout_modes: r.m_modes, routes: r.m_routes })
            }))
          ),
          Effect.mapError(fold("find credentials"))
        ),
      putMerchant: (m) =>
        sql`INSERT INTO ${MER} (id, name, allowed_checkout_modes, routes)
          VALUES (${m.id}, ${m.name}, ${JSON.stringify(m.allowedCheckoutModes)}, ${JSON.stringify(m.routes)})
          ON CONFLICT (id) DO UPDATE SET name = excluded.name,
            allowed_checkout_modes = excluded.allowed_checkout_modes, routes = excluded.routes`.pipe(
          Effect.asVoid,
          Effect.mapError(fold("put merchant"))
        ),
      putApiKey: (k) =>
        sql`INSERT INTO ${APIKEY} (id, merchant_id, environment, public_key, secret_hash, revoked_at, created_at)
          VALUES (${k.id}, ${k.merchantId}, ${k.environment}, ${k.publicKey}, ${k.secretHash},
            ${k.revokedAt === null ? null : timestamp(k.revokedAt)}, ${timestamp(k.createdAt)})
          ON CONFLICT (public_key) DO UPDATE SET id = excluded.id, merchant_id = excluded.merchant_id,
            environment = excluded.environment, secret_hash = excluded.secret_hash, created_at = excluded.created_at,
            revoked_at = COALESCE(${APIKEY}.revoked_at, excluded.revoked_at)`.pipe(
          Effect.asVoid,
          Effect.mapError(fold("put API key"))
        ),
      revokeApiKey: (keyId, at) =>
        sql`UPDATE ${APIKEY} SET revoked_at = COALESCE(revoked_at, ${timestamp(at)}) WHERE id = ${keyId} RETURNING 1 AS revoked`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.mapError(fold("revoke API key"))
        )
    })

    return { storage, merchants }
  })

/**
 * `Storage` and `Merchants` on the host's `SqlClient`, without migrating (run
 * `PgMigrations.run` from your deploy step).
 *
 * @since 0.1.0 @category layers
 */
export const layerWithoutMigrations = (
  options: PgStorageOptions = {}
): Layer.Layer<Storage.Storage | Merchant.Merchants, never, SqlClient> =>
  Layer.effectContext(Effect.map(make(options), ({ merchants, storage }) =>
    Context.make(Storage.Storage, storage).pipe(Context.add(Merchant.Merchants, merchants))))

/**
 * `Storage` and `Merchants` on the host's `SqlClient`, running the pending migrations
 * first. The host owns the client and its pool.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (
  options: PgStorageOptions = {}
): Layer.Layer<Storage.Storage | Merchant.Merchants, SqlError | MigrationError, SqlClient> =>
  layerWithoutMigrations(options).pipe(Layer.provide(PgMigrations.layer(options)))

/** @since 0.1.0 @category models */
export interface PgUrlOptions extends PgStorageOptions {
  /** A `postgres://` connection URL. */
  readonly url: string | Redacted.Redacted
  /** Pool size. Default 10. */
  readonly maxConnections?: number | undefined
}

/**
 * For hosts without a client of their own: a pool from a URL, migrated, with `Storage`
 * and `Merchants` on it. Also provides the `SqlClient`, for the host's own queries.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromUrl = (options: PgUrlOptions) =>
  layer(options).pipe(
    Layer.provideMerge(PgClient.layer({
      url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
      maxConnections: options.maxConnections ?? 10,
      applicationName: "tender"
    }))
  )
