/**
 * The SQL statements Tender's PostgreSQL adapter issues for a get by id, a list page of 25 and a
 * create (with its replay), copied from a statement trace of the demo server (docs/performance.md,
 * "The statements of a request"), with the same parameters. The two ceiling servers of
 * `npm run bench` (bench/postgres/ceiling-effect-server.ts, bench/postgres/ceiling-pg-server.ts) run exactly these
 * on the tables Tender migrated and seeded, so the only difference left is the layers between
 * the socket and the driver.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

export interface Statement {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

type Row = Record<string, any>

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const id = (prefix: string) => {
  const bytes = randomBytes(24)
  let s = prefix
  for (const b of bytes) s += alphabet[b % 62]
  return s
}
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")
const iso = (epochMillis: string | null) => epochMillis === null ? null : new Date(Number(epochMillis)).toISOString()

const intentColumns = (t: string) =>
  `id, merchant_id, environment, amount::text AS amount, currency, country, checkout_mode, status, merchant_reference, payment_method, next_action::text AS next_action, failure_code, failure_message, processing_reason, receipt::text AS receipt, customer::text AS customer, payment_method_options::text AS payment_method_options, return_url, device_fingerprint, metadata::text AS metadata, external_reference, provider_code, provider_payment_id, hosted_action::text AS hosted_action, cancellation_reason, amount_refunded::text AS amount_refunded, refunds_pending::text AS refunds_pending, fingerprint, (extract(epoch FROM created_at) * 1000)::bigint::text AS created_at, (extract(epoch FROM updated_at) * 1000)::bigint::text AS updated_at, version::text AS version FROM "${t}payment_intents"`

export const statements = (t: string) => ({
  /** Every authenticated request: the key pair joined to its merchant. */
  credentials: (publicKey: string): Statement => ({
    text: `
        SELECT k.id, k.merchant_id, k.environment, k.public_key, k.secret_hash,
  (extract(epoch FROM k.revoked_at) * 1000)::bigint::text AS revoked_at, (extract(epoch FROM k.created_at) * 1000)::bigint::text AS created_at, k.seeded,
  m.id AS m_id, m.name AS m_name, m.allowed_checkout_modes::text AS m_modes, m.routes::text AS m_routes
        FROM "${t}api_keys" AS k LEFT JOIN "${t}merchants" AS m ON m.id = k.merchant_id
        WHERE k.public_key = COALESCE(
          (SELECT public_key FROM "${t}api_keys" WHERE public_key <= $1 ORDER BY public_key DESC LIMIT 1),
          (SELECT min(public_key) FROM "${t}api_keys"))`,
    values: [publicKey]
  }),
  /**
   * GET /payment_intents/{id} as Tender read it when the performance targets were set (the
   * baseline they name): Tender itself now reads the row by its primary key alone and
   * checks the scope on the row (docs/performance.md, "A get by the primary key alone").
   */
  intent: (intentId: string, merchantId: string, environment: string): Statement => ({
    text: `SELECT ${intentColumns(t)}
          WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
    values: [intentId, merchantId, environment]
  }),
  /** GET /payment_intents?limit=25: one row more than the page, to know whether there is a next. */
  list: (merchantId: string, environment: string, limit: number): Statement => ({
    text: `SELECT ${intentColumns(t)}
      WHERE (merchant_id = $1 AND environment = $2)
      ORDER BY "${t}payment_intents".created_at DESC, "${t}payment_intents".id DESC LIMIT $3`,
    values: [merchantId, environment, limit + 1]
  }),
  /** POST /payment_intents, 1: claim the idempotency key, or read the stored response (a replay). */
  claim: (apiKeyId: string, key: string, fingerprint: string, expiresAt: string, lockedUntil: string): Statement => ({
    text: `WITH
        k AS (INSERT INTO "${t}idempotency_keys" (api_key_id, key, fingerprint, expires_at, locked_until)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT DO NOTHING RETURNING 1),
        r AS (SELECT 1 WHERE false)
        SELECT (SELECT count(*) FROM k)::int AS key, (SELECT count(*) FROM r)::int AS reference, e.* FROM (SELECT 1) AS one
            LEFT JOIN (SELECT fingerprint, (extract(epoch FROM expires_at) * 1000)::bigint::text AS expires_at, (extract(epoch FROM locked_until) * 1000)::bigint::text AS locked_until, response_status, response_body, response_request_id FROM "${t}idempotency_keys" WHERE api_key_id = $6 AND key = $7) AS e ON true`,
    values: [apiKeyId, key, fingerprint, expiresAt, lockedUntil, apiKeyId, key]
  }),
  /** POST /payment_intents, 2: the merchant's enabled webhook endpoints (for the deliveries). */
  webhookEndpoints: (merchantId: string, environment: string): Statement => ({
    text:
      `SELECT id, merchant_id, environment, url, description, enabled_events::text AS enabled_events, secrets::text AS secrets, status, (extract(epoch FROM created_at) * 1000)::bigint::text AS created_at, (extract(epoch FROM updated_at) * 1000)::bigint::text AS updated_at, version::text AS version FROM "${t}webhook_endpoints"
      WHERE (merchant_id = $1 AND environment = $2 AND "status" = $3)
      ORDER BY "${t}webhook_endpoints".created_at DESC, "${t}webhook_endpoints".id DESC LIMIT $4`,
    values: [merchantId, environment, "enabled", 100]
  }),
  /** POST /payment_intents, 3: the intent, its two events, its expiry task and the stored response, one statement. */
  commit: (values: ReadonlyArray<unknown>): Statement => ({
    text:
      `WITH "w0" AS (INSERT INTO "${t}payment_intents" (id, merchant_id, environment, amount, currency, country, checkout_mode, status, merchant_reference, payment_method, next_action, failure_code, failure_message, processing_reason, receipt, customer, payment_method_options, return_url, device_fingerprint, metadata, external_reference, provider_code, provider_payment_id, hosted_action, cancellation_reason, amount_refunded, refunds_pending, fingerprint, created_at, updated_at, version)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)), "w1" AS (INSERT INTO "${t}events" (id, merchant_id, environment, type, resource_type, resource_id, resource_version, ordinal, data, created_at, version)
            VALUES ($32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42)), "w2" AS (INSERT INTO "${t}events" (id, merchant_id, environment, type, resource_type, resource_id, resource_version, ordinal, data, created_at, version)
            VALUES ($43, $44, $45, $46, $47, $48, $49, $50, $51, $52, $53)), "w3" AS (INSERT INTO "${t}tasks" (id, merchant_id, environment, kind, resource_id, target_id, status, due_at, attempts, lease_owner, lease_until, last_error, created_at, updated_at, version)
            VALUES ($54, $55, $56, $57, $58, $59, $60, $61, $62, $63, $64, $65, $66, $67, $68)), "w4" AS (UPDATE "${t}idempotency_keys" SET response_status = $69, response_body = $70,
              response_request_id = $71
            WHERE api_key_id = $72 AND key = $73 AND locked_until = $74::timestamptz
      AND response_status IS NULL RETURNING 1) SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM "w4") THEN "${t}guard_failed"($75::text) ELSE 1 END`,
    values
  })
})

export interface Principal {
  readonly apiKeyId: string
  readonly merchantId: string
  readonly environment: string
}

/** Basic credentials checked as Tender checks them: one SHA-256, one constant-time comparison. */
export const parseBasic = (header: string | undefined): { publicKey: string; secretKey: string } | null => {
  if (header === undefined || !header.startsWith("Basic ")) return null
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8")
  const at = decoded.indexOf(":")
  return at < 0 ? null : { publicKey: decoded.slice(0, at), secretKey: decoded.slice(at + 1) }
}

export const principal = (row: Row | undefined, secretKey: string, publicKey: string): Principal | null => {
  if (row === undefined || row["public_key"] !== publicKey || row["revoked_at"] !== null || row["m_id"] === null) return null
  const presented = Buffer.from(sha256(secretKey), "hex")
  const stored = Buffer.from(row["secret_hash"], "hex")
  if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return null
  return { apiKeyId: row["id"], merchantId: row["merchant_id"], environment: row["environment"] }
}

const json = (s: string | null) => s === null ? null : JSON.parse(s)

/** A payment-intent row in the wire shape Tender answers. */
export const wire = (r: Row) => ({
  object: "payment_intent",
  id: r["id"],
  amount: r["amount"],
  currency: r["currency"],
  country: r["country"],
  environment: r["environment"],
  checkout_mode: r["checkout_mode"],
  status: r["status"],
  merchant_reference: r["merchant_reference"],
  payment_method: r["payment_method"],
  next_action: json(r["next_action"]),
  failure_code: r["failure_code"],
  failure_message: r["failure_message"],
  cancellation_reason: r["cancellation_reason"],
  amount_refunded: r["amount_refunded"],
  metadata: json(r["metadata"]),
  created_at: iso(r["created_at"]),
  updated_at: iso(r["updated_at"])
})

export const listPage = (rows: ReadonlyArray<Row>, limit: number) => {
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const more = rows.length > limit && last !== undefined
  return {
    object: "list",
    data: page.map(wire),
    has_more: more,
    next_cursor: more ? Buffer.from(`${last["created_at"]}:${last["id"]}`).toString("base64url") : null
  }
}

/** What a create writes: the claim's parameters, then the commit's, and the response it stores. */
export const createPlan = (p: Principal, key: string, body: Record<string, unknown>) => {
  const now = Date.now()
  const created = new Date(now).toISOString()
  const lockedUntil = new Date(now + 60_000).toISOString()
  const expires = new Date(now + 15 * 60_000).toISOString()
  const fingerprint = sha256(JSON.stringify(body))
  const intentId = id("dord_")
  const providerId = id("sim_")
  const nextAction = {
    type: "display_qr_code",
    qr_data: `00020101021229370016A000000677010111011300000000000005303764540715${providerId}`,
    expires_at: expires
  }
  const intent = {
    object: "payment_intent",
    id: intentId,
    amount: body["amount"],
    currency: body["currency"],
    country: body["country"],
    environment: p.environment,
    checkout_mode: body["checkout_mode"],
    status: "requires_action",
    merchant_reference: null,
    payment_method: body["payment_method"],
    next_action: nextAction,
    failure_code: null,
    failure_message: null,
    cancellation_reason: null,
    amount_refunded: "0",
    created_at: created,
    updated_at: created
  }
  const response = JSON.stringify(intent)
  const event = JSON.stringify({ ...intent, processing_reason: null, receipt: null })
  const { environment: env, merchantId: m } = p
  const commit = [
    intentId,
    m,
    env,
    body["amount"],
    body["currency"],
    body["country"],
    body["checkout_mode"],
    "requires_action",
    null,
    body["payment_method"],
    JSON.stringify(nextAction),
    null,
    null,
    null,
    null,
    JSON.stringify(body["customer"] ?? null),
    null,
    null,
    null,
    null,
    null,
    "simulator",
    providerId,
    null,
    null,
    "0",
    "0",
    fingerprint,
    created,
    created,
    1,
    id("evt_"),
    m,
    env,
    "payment_intent.created",
    "payment_intent",
    intentId,
    1,
    0,
    event,
    created,
    1,
    id("evt_"),
    m,
    env,
    "payment_intent.requires_action",
    "payment_intent",
    intentId,
    1,
    1,
    event,
    created,
    1,
    id("task_"),
    m,
    env,
    "payment_intent.expire",
    intentId,
    null,
    "pending",
    expires,
    0,
    null,
    null,
    null,
    created,
    created,
    1,
    201,
    response,
    id("req_"),
    p.apiKeyId,
    key,
    lockedUntil,
    "w4"
  ]
  return { claim: [p.apiKeyId, key, fingerprint, new Date(now + 86_400_000).toISOString(), lockedUntil] as const, commit, response }
}
