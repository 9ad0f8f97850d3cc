/**
 * The checks every framework example makes of Tender mounted under `/payments` in a host app on
 * the host's own `pg.Pool` (docs/embedding.md): the Express, Fastify and Hono examples run the same
 * suite, each with its own app and its own 404. Not a test file itself: each example's test
 * calls `describeExampleHost`, which starts the example and runs `describeMountedHost`.
 */
import { basename, dirname } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { demoKey } from "./demo.js"
import { freePort } from "./net.js"
import { dropPrefixed, freshTablePrefix, type Queryable, testDatabaseUrl } from "./postgres.js"
import { basic, hosted, promptpay, simulatorNotificationHeaders } from "./requests.js"

/** The part of a `pg.Pool` the suite uses. */
export type Pool = Queryable

/** A log line as the examples' loggers keep it. */
export interface LogLine {
  readonly level: string
  readonly msg: string
}

/** A host logger (`createTender({ logger })`, called as pino's are) keeping its lines in `lines`. */
export const hostLogger = (lines: Array<LogLine>) => {
  const at = (level: string) => (_fields: Record<string, unknown>, msg: string) => void lines.push({ level, msg })
  return { info: at("info"), warn: at("warn"), error: at("error") }
}

export interface MountedHost {
  /** The framework's name as its test names it ("Express"). */
  readonly framework: string
  /** The example's folder name ("express"). */
  readonly example: string
  /** The host's origin, known once it listens. */
  readonly base: () => string
  readonly pool: Pool
  readonly tablePrefix: string
  /** What the host's logger got. */
  readonly logs: ReadonlyArray<LogLine>
  /** Make a second app on the same pool (publicUrl `base/other`), start Tender, dispose of it and the app. */
  readonly startAndDisposeAnother: () => Promise<void>
}

/**
 * A `pg.Pool` on the test database (DATABASE_URL, else the local server) and `fresh()`, a new
 * table prefix each call; the file's `afterAll` drops every prefix handed out and ends the pool.
 */
export const prefixedPool = (max: number) => {
  const pool = new pg.Pool({ connectionString: testDatabaseUrl, max })
  const prefixes: Array<string> = []
  afterAll(async () => {
    for (const prefix of prefixes) await dropPrefixed(pool, prefix)
    await pool.end()
  })
  const fresh = () => {
    const prefix = freshTablePrefix()
    prefixes.push(prefix)
    return prefix
  }
  return { pool, fresh }
}

/** The suite: a create under the prefix, the app's own routes beside Tender's, logs, shutdown. */
export const describeMountedHost = (host: MountedHost) => {
  const auth = basic(demoKey)
  const json = { authorization: auth, "content-type": "application/json" }
  describe(`examples/${host.example}: Tender under /payments on the app's own pool`, () => {
    it("creates a payment intent under the prefix; its hosted URL and the OpenAPI servers carry the prefix", async () => {
      const base = host.base()
      const created = await fetch(`${base}/payments/payment_intents`, {
        method: "POST",
        headers: { ...json, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(promptpay)
      })
      assert.strictEqual(created.status, 201)
      const body = await created.json()
      assert.strictEqual(body.amount, "150000")
      const got = await fetch(`${base}/payments/payment_intents/${body.id}`, { headers: { authorization: auth } })
      assert.strictEqual((await got.json()).id, body.id)
      const redirected = await fetch(`${base}/payments/payment_intents`, { method: "POST", headers: json, body: JSON.stringify({ ...hosted, amount: "990" }) })
      const next = (await redirected.json()).next_action
      assert.match(JSON.stringify(next), new RegExp(`${base}/payments/checkout/`))
      const doc = await (await fetch(`${base}/payments/openapi.json`)).json()
      // The server resolves against the document's URL: a generated client calls /payments/….
      assert.strictEqual(new URL(doc.servers[0].url, `${base}/payments/openapi.json`).href, `${base}/payments/`)
    })

    it("D10 cancels a payment and refunds a paid one under the prefix, on the app's pool", async () => {
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${host.base()}/payments${path}`, {
          method,
          headers: body !== undefined ? json : { authorization: auth },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {})
        })
        return { status: res.status, body: await res.json() }
      }
      const until = async (path: string, done: (b: any) => boolean) => {
        for (let i = 0; i < 150; i++) {
          const b = (await send("GET", path)).body
          if (done(b)) return b
          await new Promise((r) => setTimeout(r, 100))
        }
        return (await send("GET", path)).body
      }
      const toCancel = (await send("POST", "/payment_intents", promptpay)).body.id
      const canceled = await send("POST", `/payment_intents/${toCancel}/cancel`, { cancellation_reason: "requested_by_customer" })
      assert.deepStrictEqual([canceled.status, canceled.body.status, canceled.body.cancellation_reason], [200, "canceled", "requested_by_customer"])
      const paid = (await send("POST", "/payment_intents", promptpay)).body.id
      await send("POST", `/payment_intents/${paid}/confirm`)
      assert.strictEqual((await until(`/payment_intents/${paid}`, (b) => b.status === "succeeded")).status, "succeeded")
      const refund = await send("POST", "/refunds", { payment_intent: paid, amount: "50000" })
      assert.deepStrictEqual([refund.status, refund.body.status], [201, "pending"])
      assert.strictEqual((await until(`/refunds/${refund.body.id}`, (b) => b.status !== "pending")).status, "succeeded")
      assert.strictEqual((await send("GET", `/payment_intents/${paid}`)).body.amount_refunded, "50000")
    })

    it("D11 a provider notification under the prefix is verified over its exact bytes: accepted as signed, 400 signature_invalid with one byte changed", async () => {
      const url = `${host.base()}/payments/provider_notifications/simulator`
      // Odd spacing and Thai text: a body parser that re-encoded it would break the signature.
      const body = `{"id":"evt_${crypto.randomUUID()}",  "type":"payment.succeeded", "data":{"payment_intent":"dord_000000000000000000000000"}, "note":"ทดสอบ"}`
      const accepted = await fetch(url, { method: "POST", headers: simulatorNotificationHeaders(body), body })
      assert.deepStrictEqual([accepted.status, await accepted.text()], [200, "{\"received\":true}"])
      const tampered = await fetch(url, { method: "POST", headers: simulatorNotificationHeaders(body), body: body.replace("ทดสอบ", "ทดสอม") })
      assert.strictEqual(tampered.status, 400)
      assert.strictEqual((await tampered.json()).error.code, "signature_invalid")
    })

    it(`the app's own routes answer beside Tender's, with their body parser; unknown paths get ${host.framework}'s 404`, async () => {
      const base = host.base()
      assert.deepStrictEqual(await (await fetch(`${base}/health`)).json(), { ok: true })
      const order = await fetch(`${base}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"sku\":\"A1\"}" })
      assert.strictEqual(order.status, 201)
      assert.deepStrictEqual(await order.json(), { order: { sku: "A1" } })
      const missing = await fetch(`${base}/payments/nope`)
      assert.strictEqual(missing.status, 404)
      assert.notInclude(await missing.text(), "resource_not_found")
    })

    it("Tender's log lines reach the app's logger: a storage fault is logged there, the client gets a D1 5xx", async () => {
      const prefix = host.tablePrefix
      // The idempotency table gone: the create fails in storage, which Tender logs (D1: details to the log only).
      await host.pool.query(`ALTER TABLE "${prefix}idempotency_keys" RENAME TO "${prefix}idempotency_keys_away"`)
      try {
        const res = await fetch(`${host.base()}/payments/payment_intents`, {
          method: "POST",
          headers: { ...json, "idempotency-key": crypto.randomUUID() },
          body: JSON.stringify(promptpay)
        })
        assert.isAtLeast(res.status, 500)
        assert.notInclude(await res.text(), "idempotency_keys")
      } finally {
        await host.pool.query(`ALTER TABLE "${prefix}idempotency_keys_away" RENAME TO "${prefix}idempotency_keys"`)
      }
      const line = host.logs.find((l) => l.level === "error")
      assert.isDefined(line, JSON.stringify(host.logs))
      assert.match(line!.msg, /failed/)
    })

    it("shutdown: dispose releases Tender, the app's pool stays open for the app", async () => {
      await host.startAndDisposeAnother()
      assert.strictEqual((await host.pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one, 1)
    })
  })
}

/** What an example's `makeApp` (src/app.js) takes: `createTender`'s options, on the app's pool. */
export interface ExampleOptions {
  readonly storage: { readonly postgres: Pool; readonly tablePrefix: string }
  readonly publicUrl: string
  readonly checkoutSecret: string
  readonly merchants: string
  readonly logger: ReturnType<typeof hostLogger>
}

export interface ExampleHost<Made extends { readonly tender: { close(): Promise<void> } }> {
  readonly framework: string
  readonly makeApp: (options: ExampleOptions) => Promise<Made>
  /** Serve the app on 127.0.0.1:`port`; resolves once it listens, to a function that stops it. */
  readonly serve: (made: Made, port: number) => Promise<() => Promise<void>>
  /** Dispose of a second app and its Tender (default: close its Tender; the app holds nothing). */
  readonly disposeAnother?: (made: Made) => Promise<void>
}

/**
 * One framework example's test: its `makeApp` on a fresh pool and table prefix, served on a free
 * port known before the app is made (its public URL, so hosted links, name it), then the
 * `describeMountedHost` suite; everything torn down and the prefixed tables dropped afterwards.
 */
export const describeExampleHost = <Made extends { readonly tender: { close(): Promise<void> } }>(
  /** The test file's `import.meta.url`: examples/<example>/test/app.test.ts, beside the example's seed.json. */
  testUrl: string,
  example: ExampleHost<Made>
) => {
  const seedPath = fileURLToPath(new URL("../seed.json", testUrl))
  const name = basename(dirname(dirname(fileURLToPath(testUrl))))
  const { pool, fresh } = prefixedPool(5)
  const tablePrefix = fresh()
  const logs: Array<LogLine> = []
  let base = ""
  let made: Made | undefined
  let stop: (() => Promise<void>) | undefined
  const options = (publicUrl: string, logger: ReturnType<typeof hostLogger>): ExampleOptions => ({
    storage: { postgres: pool, tablePrefix },
    publicUrl,
    checkoutSecret: "test-secret",
    merchants: seedPath,
    logger
  })

  beforeAll(async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    made = await example.makeApp(options(`${base}/payments`, hostLogger(logs)))
    stop = await example.serve(made, port)
  })

  afterAll(async () => {
    await stop?.()
    await made?.tender.close()
  })

  describeMountedHost({
    framework: example.framework,
    example: name,
    base: () => base,
    pool,
    tablePrefix,
    logs,
    startAndDisposeAnother: async () => {
      const another = await example.makeApp(options(`${base}/other`, hostLogger([])))
      await (example.disposeAnother ?? ((made) => made.tender.close()))(another)
    }
  })
}
