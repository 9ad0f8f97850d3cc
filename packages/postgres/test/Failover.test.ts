/**
 * A PostgreSQL failover under load, as a bank would ask for it: a primary with a synchronous
 * streaming standby (PostgreSQL 15 clusters of this machine, clusters.ts), the demo server
 * reaching them through one address (a TCP proxy, address.ts, switched as a virtual IP or a DNS
 * name is), payment intents created, confirmed and read and their webhooks delivered to a local
 * receiver, then `kill -9` of the primary's postmaster, promotion of the standby and the address
 * moved to it. Then the same again from the new primary to a standby made for it, the address
 * moved first and the promotion after (a balancer whose check only sees that a server accepts
 * connections sends them to a standby still in recovery, which refuses writes). Nothing of
 * Tender is restarted.
 *
 * It needs root and Debian's PostgreSQL 15 cluster tools; where they are missing it is skipped
 * with a line saying why, except under CI=true, where that is a failure.
 */
import { basic, closeReceivers, demoKey, promptpayFor, receiver, until } from "@tender/repo-test-support"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Address, address } from "./address.js"
import { type ClusterSet, clusterSet, clusterSkipReason, type Node, query } from "./clusters.js"
import { freshPrefix } from "./database.js"
import { type DemoServer, quickSimulator, start, stopDemos } from "./demoServer.js"

const skipReason = clusterSkipReason()
if (skipReason !== undefined && process.env["CI"] === "true") {
  throw new Error(`CI=true and the failover test cannot make PostgreSQL clusters here: ${skipReason}`)
}
if (skipReason !== undefined) process.stderr.write(`[@tender/postgres] failover test skipped: ${skipReason}\n`)

/**
 * The settings a host would choose for a fast failover (docs/postgres.md, "High availability"):
 * a statement answers within 2 s or the request answers 503; a task whose commit the switch cut
 * off is claimed again when its 3 s lease lapses (the simulator and the local receiver answer
 * in milliseconds, far inside it).
 */
const statementTimeoutMillis = 2_000
const env = {
  ...quickSimulator,
  TENDER_DB_STATEMENT_TIMEOUT_MS: String(statementTimeoutMillis),
  TENDER_TASK_LEASE_MS: "3000",
  TENDER_REQUEST_TIMEOUT_MS: "10000"
}
/**
 * A request not answered within this is "hung": the request timeout a balancer or client in front
 * of Tender applies (the demo's own limit on a request, TENDER_REQUEST_TIMEOUT_MS, is the same),
 * which no answer during a switch may pass.
 */
const requestTimeoutMillis = 10_000

/** One request of the load and how it was answered. */
interface Attempt {
  readonly kind: "create" | "confirm" | "read"
  readonly started: number
  readonly ended: number
  /** The HTTP status; "hung" when no answer came within the request timeout, "dropped" when the connection broke. */
  readonly status: number | "hung" | "dropped"
  readonly code: string | undefined
  readonly retryAfter: string | null
  readonly body: any
  /** Whether it repeats a request answered 503 (the same Idempotency-Key for a create). */
  readonly retry?: boolean
}

/**
 * A retry that finds the claim of its own earlier attempt still held. That attempt answered 503,
 * which releases the lock (4.9.7): a claim the database could not take back then is given back by
 * the retry itself (docs/idempotency.md, "5xx releases the key"), so none is expected; counted in
 * the numbers, and refused by the check below.
 */
const inFlight = (a: Attempt) => a.status === 409 && a.code === "idempotency_conflict" && a.retry === true

const auth = basic(demoKey)

/** A request to the demo, bounded by the request timeout; "hung" when no answer came within it. */
const call = async (base: string, kind: Attempt["kind"], method: string, path: string, init: { json?: unknown; key?: string } = {}): Promise<Attempt> => {
  const started = Date.now()
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: auth,
        ...(init.json === undefined ? {} : { "content-type": "application/json" }),
        ...(init.key === undefined ? {} : { "idempotency-key": init.key })
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      signal: AbortSignal.timeout(requestTimeoutMillis)
    })
    const body = await res.json() as any
    return { kind, started, ended: Date.now(), status: res.status, code: body?.error?.code, retryAfter: res.headers.get("retry-after"), body }
  } catch (e) {
    const status = e instanceof DOMException && e.name === "TimeoutError" ? "hung" : "dropped"
    return { kind, started, ended: Date.now(), status, code: undefined, retryAfter: null, body: String(e) }
  }
}

const sleep = (millis: number) => new Promise((r) => setTimeout(r, millis))

const describeWithClusters = (title: string, tests: () => void) =>
  skipReason === undefined ? describe(title, tests) : describe(title, () => it.skip(`skipped: ${skipReason}`, () => {}))

/** What one switch measured: when each step happened and when each part of Tender was back. */
interface Switch {
  readonly order: "promote, then move" | "move, then promote"
  readonly killedAt: number
  /** When the new primary accepted writes at the address: promoted and the address moved to it. */
  readonly acceptingAt: number
  /** The first create answered 201 that was sent after that. */
  readonly firstCreated: Attempt
  /** When both LISTEN connections (the directory cache's, the task workers') were open on the new primary. */
  readonly listeningAt: number
  /** When the first task committed on the new primary (a confirm's `payment_intent.succeeded`). */
  readonly firstTaskAt: number
  /** When the first webhook delivery after the switch arrived. */
  readonly firstDeliveryAt: number
  /** Every request answered before the kill. */
  readonly answeredBefore: ReadonlyArray<Attempt>
}

describeWithClusters("a PostgreSQL failover under load (primary killed, synchronous standby promoted, address moved)", () => {
  const prefix = freshPrefix()
  const state = {} as { clusters: ClusterSet; first: Node; second: Node; address: Address; demo: DemoServer }
  // Set when the file ends: a test that failed half way stops its load before the demo stops.
  let ended = false

  beforeAll(async () => {
    state.clusters = await clusterSet()
    state.first = await state.clusters.primary()
    state.second = await state.clusters.standbyOf(state.first)
    state.address = await address(state.first.port)
    state.demo = await start({ ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${state.address.port}/postgres`, TENDER_TABLE_PREFIX: prefix })
  }, 120_000)

  // Every cluster is dropped whatever happened: registered first, so it runs last (after the demo stops).
  afterAll(async () => {
    await state.clusters?.drop()
  })
  afterAll(async () => {
    ended = true
    await stopDemos("SIGKILL")
    closeReceivers()
    await state.address?.close()
  })

  it(
    "D1 a failover answers 503 service_unavailable with Retry-After while no primary answers, loses nothing answered, and the pool, LISTEN and workers recover without a restart",
    async () => {
      const { clusters, demo } = state
      const base = demo.url
      const pid = demo.child.pid

      const hooks = await receiver()
      const endpoint = await call(base, "create", "POST", "/webhook_endpoints", { json: { url: hooks.url("/hooks") }, key: crypto.randomUUID() })
      assert.strictEqual(endpoint.status, 201, JSON.stringify(endpoint.body))

      // The load: each flow creates an intent, confirms it and reads it, retrying a 503 under the
      // same Idempotency-Key as a client following Retry-After would (sooner, to see the switch).
      const attempts: Array<Attempt> = []
      const flows: Array<{ id: string | undefined; confirmed: boolean }> = []
      let running = true
      const retrying = async (send: () => Promise<Attempt>): Promise<Attempt> => {
        for (let i = 0;; i++) {
          const a = { ...(await send()), retry: i > 0 }
          attempts.push(a)
          if ((a.status !== 503 && !inFlight(a)) || i === 400 || ended) return a
          await sleep(50)
        }
      }
      const load = Promise.all(Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; running && !ended; i++) {
          const flow: { id: string | undefined; confirmed: boolean } = { id: undefined, confirmed: false }
          flows.push(flow)
          const key = `failover-${w}-${i}`
          const created = await retrying(() => call(base, "create", "POST", "/payment_intents", { json: promptpayFor(String(150_000 + i)), key }))
          if (created.status !== 201) return
          flow.id = created.body.id
          // Under a key of its own, as 4.9.1 asks: a 503 whose commit landed all the same (the
          // connection cut after it) is replayed to the retry, not refused as already confirmed.
          const confirmed = await retrying(() => call(base, "confirm", "POST", `/payment_intents/${flow.id}/confirm`, { key: `${key}-confirm` }))
          if (confirmed.status !== 200) return
          flow.confirmed = true
          await retrying(() => call(base, "read", "GET", `/payment_intents/${flow.id}`))
        }
      }))
      /** Until 10 more flows have been confirmed: work answered on the primary of the moment. */
      const progress = async () => {
        const from = flows.filter((f) => f.confirmed).length
        await until(() => flows.filter((f) => f.confirmed).length, (n) => n >= from + 10)
      }

      /**
       * Kill `from`'s postmaster, promote `to` and move the address to it, in `order`; then wait
       * for each part of Tender to work on `to` by itself.
       */
      const failover = async (from: Node, to: Node, order: Switch["order"]): Promise<Switch> => {
        await progress()
        const killedAt = Date.now()
        from.kill()
        const answeredBefore = attempts.filter((a) => a.ended < killedAt)
        if (order === "promote, then move") {
          await to.promote()
          state.address.moveTo(to.port)
        } else {
          state.address.moveTo(to.port)
          const movedAt = Date.now()
          // The standby still in recovery refuses every write (SQLSTATE 25006, which its log
          // records): answered 503 before the promotion ends it.
          const refused = await until(
            () =>
              to.log().includes("in a read-only transaction") ? attempts.find((a) => a.status === 503 && a.started > movedAt && a.kind !== "read") : undefined,
            (a) => a !== undefined
          )
          assert.isDefined(
            refused,
            `no write was refused by the standby and answered 503: ${JSON.stringify(attempts.filter((a) => a.started > movedAt).slice(0, 5))}`
          )
          await to.promote()
        }
        const acceptingAt = Date.now()
        const [recovery] = await query<{ in_recovery: boolean }>(to.port, "SELECT pg_is_in_recovery() AS in_recovery")
        assert.isFalse(recovery?.in_recovery)

        // The pool: a create sent after the switch answered 201.
        const firstCreated = await until(
          () => attempts.find((a) => a.kind === "create" && a.status === 201 && a.started >= acceptingAt),
          (a) => a !== undefined
        )
        assert.isDefined(firstCreated, `no create answered 201 after the switch (${order})\n${demo.output()}`)
        // LISTEN: the directory cache's and the task workers' connections open again, on the new primary.
        const listening = await until(
          () => query<{ application_name: string }>(to.port, "SELECT application_name FROM pg_stat_activity WHERE query LIKE 'LISTEN %'"),
          (rows) => ["tender directory", "tender wake-ups"].every((name) => rows.some((r) => r.application_name === name))
        )
        assert.sameMembers(listening.map((r) => r.application_name), ["tender directory", "tender wake-ups"], demo.output())
        const listeningAt = Date.now()
        // The workers: a confirm task committed on the new primary, and a webhook delivered after the switch.
        const ran = await until(
          () =>
            query<{ at: string | null }>(
              to.port,
              `SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint::text AS at FROM "${prefix}events"
          WHERE type = 'payment_intent.succeeded' AND created_at >= to_timestamp(${acceptingAt / 1000})`
            ),
          (rows) => rows[0]?.at !== null
        )
        assert.isNotNull(ran[0]?.at ?? null, `no task ran on the new primary (${order})\n${demo.output()}`)
        const delivery = await until(() => hooks.received.find((r) => r.at >= acceptingAt), (r) => r !== undefined)
        assert.isDefined(delivery, `no webhook delivered after the switch (${order})\n${demo.output()}`)
        return {
          order,
          killedAt,
          acceptingAt,
          firstCreated: firstCreated!,
          listeningAt,
          firstTaskAt: Number(ran[0]!.at),
          firstDeliveryAt: delivery!.at,
          answeredBefore
        }
      }

      /**
       * Every 201 and every 200 confirm answered before the kill is on `to`: the intent, and the
       * confirm's task (a confirm answers once its task is stored; the task asks the provider).
       */
      const kept = async (to: Node, answeredBefore: ReadonlyArray<Attempt>) => {
        const intents = new Set((await query<{ id: string }>(to.port, `SELECT id FROM "${prefix}payment_intents"`)).map((r) => r.id))
        const confirms = new Set(
          (await query<{ resource_id: string }>(to.port, `SELECT resource_id FROM "${prefix}tasks" WHERE kind = 'payment_intent.confirm'`)).map((r) =>
            r.resource_id
          )
        )
        for (const a of answeredBefore) {
          if (a.kind === "create" && a.status === 201) assert.isTrue(intents.has(a.body.id), `201'd ${a.body.id} is not on the new primary`)
          if (a.kind === "confirm" && a.status === 200) assert.isTrue(confirms.has(a.body.id), `the confirm of ${a.body.id} is not on the new primary`)
        }
      }

      const first = await failover(state.first, state.second, "promote, then move")
      await kept(state.second, first.answeredBefore)
      // A standby for the new primary, made under load, and the next failover onto it.
      const third = await clusters.standbyOf(state.second)
      const second = await failover(state.second, third, "move, then promote")
      await kept(third, second.answeredBefore)

      // A little more work on the last primary, then every flow runs to its end.
      await progress()
      running = false
      await load

      // No restart: the same process served throughout.
      assert.strictEqual(demo.child.pid, pid)
      assert.isNull(demo.child.exitCode, demo.output())

      // Every answer is a success or a 503 service_unavailable in the D1 shape with Retry-After;
      // none is a 500, none waited past the request timeout, no connection was dropped, and no
      // retry of a 503 found its own earlier attempt in flight (409): a 5xx released it (4.9.7).
      for (const a of attempts) {
        assert.include([200, 201, 503], a.status, JSON.stringify(a))
        if (a.status === 503) {
          assert.strictEqual(a.code, "service_unavailable", JSON.stringify(a))
          assert.isString(a.body?.error?.message)
          assert.match(a.retryAfter ?? "", /^\d+$/, JSON.stringify(a))
        }
      }
      // Every flow ran to its end once a primary was back: creates retried under their keys, confirms.
      for (const f of flows) assert.isTrue(f.confirmed, JSON.stringify(f))
      const during = (s: Switch) => attempts.filter((a) => a.ended >= s.killedAt && a.started <= s.firstCreated.ended)
      for (const s of [first, second]) assert.isAbove(during(s).filter((a) => a.status === 503).length, 0, `no request saw the switch (${s.order})`)

      // Every confirmed intent succeeds, each change once: no task ran twice with effects.
      const last = third.port
      const ids = flows.map((f) => f.id!)
      const settled = await until(
        () => query<{ id: string; status: string }>(last, `SELECT id, status FROM "${prefix}payment_intents"`),
        (rows) => ids.every((id) => rows.find((r) => r.id === id)?.status === "succeeded")
      )
      assert.deepStrictEqual(ids.filter((id) => settled.find((r) => r.id === id)?.status !== "succeeded"), [], demo.output())
      const events = await query<{ id: string; resource_id: string; type: string }>(last, `SELECT id, resource_id, type FROM "${prefix}events"`)
      for (const id of ids) {
        const mine = events.filter((e) => e.resource_id === id).map((e) => e.type)
        assert.sameMembers(mine, ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"], id)
      }

      // Every task that was due ran to its end on the last primary, those the switches cut off
      // included (expiry timers fall due 15 minutes after create and may still wait).
      const unfinished = await until(
        () => query<{ n: string }>(last, `SELECT count(*)::text AS n FROM "${prefix}tasks" WHERE status <> 'done' AND kind <> 'payment_intent.expire'`),
        (rows) => rows[0]?.n === "0"
      )
      assert.strictEqual(unfinished[0]?.n, "0", demo.output())

      // No webhook lost: every event of the load's intents reaches the receiver, at least once;
      // a second delivery (at least once allows it) is the same event under the same id, and
      // nothing is delivered that the last primary does not hold.
      const expected = events.filter((e) => ids.includes(e.resource_id))
      const delivered = await until(
        () => new Set(hooks.received.map((r) => String(r.headers["webhook-id"]))),
        (got) => expected.every((e) => got.has(e.id))
      )
      assert.deepStrictEqual(expected.filter((e) => !delivered.has(e.id)).map((e) => e.id), [], "events never delivered")
      const bodies = new Map<string, Set<string>>()
      for (const r of hooks.received) bodies.set(String(r.headers["webhook-id"]), (bodies.get(String(r.headers["webhook-id"])) ?? new Set()).add(r.body))
      assert.isTrue([...bodies.values()].every((b) => b.size === 1), "two different events under one webhook-id")
      const stored = new Set(events.map((e) => e.id))
      assert.deepStrictEqual([...bodies.keys()].filter((id) => !stored.has(id)), [], "a delivered event is not on the last primary")

      // The numbers, on request (docs/postgres.md, "High availability", quotes them).
      if (process.env["TENDER_FAILOVER_NUMBERS"] === "1") {
        const byStatus = (list: ReadonlyArray<Attempt>) =>
          Object.fromEntries([...new Set(list.map((a) => a.status))].map((s) => [s, list.filter((a) => a.status === s).length]))
        for (const s of [first, second]) {
          process.stderr.write(`[failover] ${
            JSON.stringify({
              order: s.order,
              requestsDuringSwitch: byStatus(during(s)),
              slowestAnswerDuringSwitchMs: Math.max(...during(s).map((a) => a.ended - a.started)),
              newPrimaryAcceptingAfterKillMs: s.acceptingAt - s.killedAt,
              first201AfterMs: s.firstCreated.ended - s.acceptingAt,
              listenersBackAfterMs: s.listeningAt - s.acceptingAt,
              firstTaskAfterMs: s.firstTaskAt - s.acceptingAt,
              firstDeliveryAfterMs: s.firstDeliveryAt - s.acceptingAt
            })
          }\n`)
        }
        process.stderr.write(
          `[failover] ${
            JSON.stringify({
              retriesInFlight: attempts.filter(inFlight).length,
              requests: attempts.length,
              flows: flows.length,
              deliveries: hooks.received.length,
              duplicateDeliveries: hooks.received.length - bodies.size
            })
          }\n`
        )
      }
    },
    240_000
  )
})
