/**
 * `npm run bench:scale`: the scenarios of `npm run bench` (bench/http/scenarios.ts) on
 * PostgreSQL, on empty tables against tables filled by SQL (generate_series) with 1,000,000
 * payment intents over 1,000 merchants, 3,000,000 events, 1,000,000 idempotency keys, 1,000,000
 * finished tasks and 1,000,000 webhook attempts. Two demo servers run side by side on the one
 * database, each on its own tables; every scenario alternates between them in rounds
 * (bench/shared/rounds.ts), so filled / empty is a ratio of loads taken seconds apart.
 * Then the plans of the hot statements on the big tables, the table and index sizes, and the
 * retention purge (Maintenance, docs/retention.md) of everything due while a get is driven at
 * the server: its p99 during the purge against before. Writes docs/scale.md with `--write`.
 *
 *   npm run bench:scale                       # full size (minutes of filling)
 *   npm run bench:scale -- --scale 0.1        # a tenth of every table
 *   BENCH_SECONDS=10 BENCH_ROUNDS=5 npm run bench:scale -- --scale 0.1 --write
 *
 * BENCH_DATABASE_URL (else DATABASE_URL) names the one database it fills and serves.
 */
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql/SqlClient"
import { Maintenance } from "@tender/core"
import { PgStorage } from "@tender/postgres"
import { basic, demoKey, formatNumber, testDatabaseUrl } from "@tender/repo-test-support"
import { Duration, Effect, Layer, Redacted } from "effect"
import { writeFileSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
import { resolve } from "node:path"
import { deepPages, deepPageSize, fill, scenarioContenders, type ScenarioKey, scenarioKeys, scenarios } from "../http/scenarios.js"
import { connections, load, type Measured, ms, seconds } from "../shared/load.js"
import { readNotes } from "../shared/notes.js"
import { dropPrefix } from "../shared/pg-prefix.js"
import { rounds, roundSeconds } from "../shared/rounds.js"
import { type Server, startServer, stopServer } from "../shared/server.js"
import { statements } from "./pg-statements.js"

const argv = process.argv.slice(2)
const scaleAt = argv.indexOf("--scale")
const scale = scaleAt === -1 ? 1 : Number(argv[scaleAt + 1])
if (!(scale > 0 && scale <= 10)) throw new Error(`--scale must be a number above 0 and at most 10; got ${argv[scaleAt + 1]}`)
// One database for everything: the fill, the plans and the purge run on the tables the server serves.
const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? testDatabaseUrl
const runSql = <A, E>(effect: Effect.Effect<A, E, SqlClient>) =>
  Effect.runPromise(Effect.scoped(
    Layer.build(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 4 })).pipe(
      Effect.flatMap((ctx) => Effect.provide(effect, ctx))
    )
  ))
const merchants = 1000
const sizes = {
  intents: Math.round(1_000_000 * scale),
  events: Math.round(3_000_000 * scale),
  keys: Math.round(1_000_000 * scale),
  tasks: Math.round(1_000_000 * scale),
  attempts: Math.round(1_000_000 * scale)
}

const mib = (bytes: number) => `${formatNumber(bytes / 2 ** 20, 1)} MiB`

/** A stored event's data as Tender writes it: the resource at that version, about 700 bytes. */
const eventData = JSON.stringify({
  object: "payment_intent",
  id: "dord_0000000000000000000000000",
  amount: "150000",
  currency: "THB",
  country: "TH",
  status: "succeeded",
  checkout_mode: "merchant",
  payment_method: "th_promptpay",
  merchant_reference: "order-000000",
  customer: { name: "Somchai Jaidee", email: "somchai@example.com" },
  metadata: { order: "000000", channel: "web" },
  next_action: null,
  failure_code: null,
  failure_message: null,
  amount_refunded: "0",
  refunds_pending: "0",
  created_at: "2026-11-22T00:00:00.000Z",
  updated_at: "2026-11-22T00:00:05.000Z",
  livemode: false
})

/**
 * Fill every big table under `prefix` in one statement each, spread over time so that the
 * retention purge has work: two thirds of the events and attempts are older than 30 days, most
 * finished tasks older than 7 days, two thirds of the keys expired.
 */
const fillBySql = (prefix: string) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const step = (name: string, text: string) =>
      Effect.gen(function*() {
        const start = Date.now()
        yield* sql.unsafe(text)
        process.stdout.write(`  ${name}: ${formatNumber((Date.now() - start) / 1000, 1)} s\n`)
      })
    const m = (g: string) => `'mch_scale_' || (${g} % ${merchants})`
    const env = (g: string) => `CASE WHEN ${g} % 7 = 0 THEN 'live' ELSE 'test' END`
    const over = (days: number, n: number) => `now() - interval '${days} days' + g * (interval '${days} days' / ${n})`
    yield* step(
      `${formatNumber(sizes.intents)} payment intents`,
      `INSERT INTO ${prefix}payment_intents (id, merchant_id, environment, amount, currency,
        country, checkout_mode, status, merchant_reference, payment_method, customer, fingerprint, created_at, updated_at, version)
      SELECT 'dord_scale' || lpad(g::text, 19, '0'), ${m("g")}, ${env("g")}, 1000 + g % 100000, (ARRAY['THB', 'USD', 'VND'])[1 + g % 3],
        (ARRAY['TH', 'VN'])[1 + g % 2], 'merchant',
        (ARRAY['requires_action', 'processing', 'succeeded', 'failed', 'expired'])[1 + (g / ${merchants}) % 5],
        'order-' || g, 'th_promptpay', '{"name":"Somchai Jaidee"}', repeat('f', 64), ${over(365, sizes.intents)}, ${over(365, sizes.intents)}, 1
      FROM generate_series(1, ${sizes.intents}) AS g`
    )
    yield* step(
      `${formatNumber(sizes.events)} events`,
      `INSERT INTO ${prefix}events (id, merchant_id, environment, type, resource_type, resource_id,
        resource_version, ordinal, data, created_at, version)
      SELECT 'evt_scale' || lpad(g::text, 20, '0'), ${m("g / 3")}, ${env("g / 3")},
        (ARRAY['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded'])[1 + g % 3], 'payment_intent',
        'dord_scale' || lpad((g / 3)::text, 19, '0'), 1 + g % 3, 0, '${eventData}', ${over(90, sizes.events)}, 1
      FROM generate_series(1, ${sizes.events}) AS g`
    )
    yield* step(
      `${formatNumber(sizes.keys)} idempotency keys`,
      `INSERT INTO ${prefix}idempotency_keys (api_key_id, key, fingerprint, expires_at,
        locked_until, response_status, response_body, response_request_id)
      SELECT 'key_scale_' || (g % ${merchants}), 'k-' || g, repeat('a', 64), now() - interval '48 hours' + g * (interval '72 hours' / ${sizes.keys}),
        now() - interval '72 hours' + g * (interval '72 hours' / ${sizes.keys}), 201, '${eventData}', 'req_scale_' || g
      FROM generate_series(1, ${sizes.keys}) AS g`
    )
    yield* step(
      `${formatNumber(sizes.tasks)} finished tasks`,
      `INSERT INTO ${prefix}tasks (id, merchant_id, environment, kind, resource_id, status, due_at,
        attempts, created_at, updated_at, version)
      SELECT 'task_scale' || lpad(g::text, 19, '0'), ${m("g")}, ${env("g")}, 'payment_intent.confirm', 'dord_scale' || lpad(g::text, 19, '0'),
        CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'done' END, ${over(30, sizes.tasks)}, 1, ${over(30, sizes.tasks)},
        ${over(30, sizes.tasks)} + interval '1 second', 2
      FROM generate_series(1, ${sizes.tasks}) AS g`
    )
    yield* step(
      `${formatNumber(sizes.attempts)} webhook attempts`,
      `INSERT INTO ${prefix}webhook_attempts (id, merchant_id, environment, endpoint_id,
        event_id, attempt, status_code, duration_millis, error, created_at, version)
      SELECT 'wha_scale' || lpad(g::text, 20, '0'), ${m("g")}, ${env("g")}, 'we_scale_' || (g % ${merchants}),
        'evt_scale' || lpad((g * 3)::text, 20, '0'), 1, 200, 35, NULL, ${over(90, sizes.attempts)}, 1
      FROM generate_series(1, ${sizes.attempts}) AS g`
    )
    // As autovacuum would, before the plans mean anything: statistics, and the visibility map
    // that index-only scans read.
    for (const table of ["payment_intents", "events", "idempotency_keys", "tasks", "webhook_attempts"]) {
      yield* step(`VACUUM ANALYZE ${table}`, `VACUUM ANALYZE ${prefix}${table}`)
    }
    // Gigabytes just written are still dirty in the buffer cache: a running system's checkpointer
    // wrote them out long ago. Without this, the first scenarios (the create first) run while the
    // checkpointer writes the whole fill, and measure the bulk load's aftermath, not the tables' size.
    yield* step("CHECKPOINT", "CHECKPOINT")
  })

/** Rows, table and index size of every table under `prefix`, biggest first. */
const tableSizes = (prefix: string) =>
  Effect.flatMap(SqlClient, (sql) =>
    sql.unsafe<{ name: string; rows: string; table_bytes: string; index_bytes: string }>(`SELECT c.relname AS name,
        c.reltuples::bigint::text AS rows, pg_table_size(c.oid)::text AS table_bytes, pg_indexes_size(c.oid)::text AS index_bytes
      FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = current_schema() AND starts_with(c.relname, '${prefix}')
      ORDER BY pg_total_relation_size(c.oid) DESC`))

const indexSizes = (prefix: string) =>
  Effect.flatMap(SqlClient, (sql) =>
    sql.unsafe<{ name: string; bytes: string }>(`SELECT c.relname AS name, pg_relation_size(c.oid)::text AS bytes
      FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
      WHERE c.relkind = 'i' AND n.nspname = current_schema() AND starts_with(c.relname, '${prefix}')
      ORDER BY pg_relation_size(c.oid) DESC`))

/** The plan of one statement with the rows and buffers each node read. */
const plan = (text: string, values: ReadonlyArray<unknown>) =>
  Effect.flatMap(
    SqlClient,
    (sql) => sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, values as Array<unknown>)
  ).pipe(
    Effect.map((rows) => rows.map((r) => r["QUERY PLAN"]).join("\n"))
  )

/**
 * The retention purge with the default options (Maintenance.defaults), batch by batch as
 * `Maintenance.purge` runs it, timing each batch: how long one batch holds its rows.
 */
const purgeTimed = (prefix: string) =>
  Effect.gen(function*() {
    // No directory cache: the purge touches no credentials, and the cache would hold a listener open.
    const { storage } = yield* PgStorage.make({ tablePrefix: prefix, directoryCache: false })
    const d = Maintenance.defaults
    const now = Date.now()
    const batch = Maintenance.batchOf(now)
    const times: Array<number> = []
    const total = { idempotencyKeys: 0, referenceClaims: 0, events: 0, tasks: 0, webhookAttempts: 0 }
    for (;;) {
      const start = performance.now()
      const r = Maintenance.byKind(yield* storage.purgeExpired(now, batch))
      times.push(performance.now() - start)
      for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += r[k]
      if (Object.values(r).every((n) => n < d.batchSize)) break
      yield* Effect.sleep(d.pause)
    }
    return { total, times }
  }).pipe(Effect.scoped)

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

const main = async () => {
  const lines: Array<string> = []
  const say = (s: string) => {
    lines.push(s)
    process.stdout.write(s + "\n")
  }
  const run = Date.now().toString(36)
  // Two table sets in the one database, each served by its own server: the empty tables' and
  // the filled tables'. Neither prefix starts the other, so each drops and sizes only its own.
  const prefix = `scale_${run}_full_`
  const emptyPrefix = `scale_${run}_empty_`
  // The servers' own scheduled purge is off: the bench runs the purge itself, under load, at the end.
  const envOf = (prefix: string) => ({ DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: prefix, TENDER_PURGE: "off" })
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${
    new Date().toISOString()
  }`
  say(
    `# Scale: cost as the tables grow\n\nMeasured by \`npm run bench:scale -- --scale ${scale}\` (bench/postgres/scale.ts) on ${machine}, load average ${
      loadavg().map((x) => x.toFixed(2)).join(", ")
    }.`
  )
  say(
    `autocannon, ${connections} connections, over loopback, PostgreSQL ${
      databaseUrl.replace(/:[^:@/]*@/, ":***@")
    }. The same scenarios as \`npm run bench\` (bench/http/scenarios.ts) against two demo servers side by side on that database, one on empty tables, one on tables filled by SQL: ${
      Object.entries(sizes).map(([k, v]) => `${formatNumber(v)} ${k}`).join(", ")
    } (over ${merchants} merchants). Every scenario in ${rounds} rounds of ${roundSeconds} s that alternate between the two: the median round's req/s, p50 and p99 of every response. Read the ratios: the machine is shared.\n`
  )
  let server: Server | undefined
  let emptyServer: Server | undefined
  try {
    // The filled tables are migrated by a server, then filled while no server runs.
    server = await startServer("examples/server/dist/main.js", envOf(prefix))
    await stopServer(server)
    server = undefined
    process.stdout.write(`filling ${prefix} by SQL\n`)
    const fillStart = Date.now()
    await runSql(fillBySql(prefix))
    say(
      `Filling took ${
        formatNumber((Date.now() - fillStart) / 1000, 0)
      } s (one INSERT … SELECT generate_series per table, then VACUUM ANALYZE and a CHECKPOINT).\n`
    )

    emptyServer = await startServer("examples/server/dist/main.js", envOf(emptyPrefix))
    server = await startServer("examples/server/dist/main.js", envOf(prefix))
    // The demo merchant needs 1,000 pages of 10 on both. The same creates also warm both servers
    // alike: a server measured cold reads a create at 0.4 of a warm one in its first seconds (JIT,
    // pool, caches), which the filled tables were once blamed for (docs/scale.md, "The fourth full-size run").
    await fill(emptyServer.url, deepPages * deepPageSize + deepPageSize)
    await fill(server.url, deepPages * deepPageSize + deepPageSize)
    const filled = await scenarioContenders([server.url])
    const empty = await scenarios([emptyServer.url], () => Object.fromEntries(scenarioKeys.map((k) => [k, [filled.contenders[k]]])))
    await stopServer(emptyServer)
    emptyServer = undefined
    dropPrefix(emptyPrefix, databaseUrl)
    const full = { ...Object.fromEntries(scenarioKeys.map((k) => [k, empty.paired[k]![0]!])) as Record<ScenarioKey, Measured>, firstId: filled.firstId }
    say("| scenario | empty: req/s (p50 / p99 ms) | filled: req/s (p50 / p99 ms) | filled / empty | p99 filled / empty |")
    say("|---|---:|---:|---:|---:|")
    const rows: Array<[string, ScenarioKey]> = [
      ["create (unique keys)", "create"],
      ["idempotent replay", "replay"],
      ["get by id", "get"],
      ["list first page (25)", "listFirst"],
      ["list page 1 (10)", "listShallow"],
      ["list page 1,000 (10)", "listDeep"]
    ]
    let worst = Infinity
    for (const [name, k] of rows) {
      const a = empty[k]
      const b = full[k]
      worst = Math.min(worst, b.rps / a.rps)
      say(
        `| ${name} | ${formatNumber(a.rps)} (${ms(a.p50)} / ${ms(a.p99)}) | ${formatNumber(b.rps)} (${ms(b.p50)} / ${ms(b.p99)}) | ${
          formatNumber(b.rps / a.rps, 3)
        } | ${formatNumber(b.p99 / a.p99, 2)} |`
      )
    }
    say(`\nWorst filled / empty ratio: ${formatNumber(worst, 3)} (target: within 10 %, so at least 0.9: ${worst >= 0.9 ? "met" : "not met"}).\n`)

    const plans = await runSql(Effect.gen(function*() {
      const sql = yield* SqlClient
      const [demo] = yield* sql.unsafe<{ merchant_id: string; environment: string }>(
        `SELECT merchant_id, environment FROM ${prefix}payment_intents WHERE id = $1`,
        [full.firstId]
      )
      const s = statements(prefix)
      const out: Array<[string, string]> = []
      out.push([
        "get by id (the demo merchant's intent)",
        yield* plan(s.intent(full.firstId, demo!.merchant_id, demo!.environment).text, [full.firstId, demo!.merchant_id, demo!.environment])
      ])
      const list = s.list("mch_scale_7", "test", 25)
      out.push(["list first page of 25 (a filled merchant, 857 test intents)", yield* plan(list.text, list.values)])
      const purge = (table: string, column: string, condition: string) =>
        plan(`SELECT ctid FROM ${prefix}${table} WHERE ${condition} ORDER BY ${column} LIMIT 1000 FOR UPDATE SKIP LOCKED`, [])
      out.push(["purge batch: events older than 30 days", yield* purge("events", "created_at", "created_at < now() - interval '30 days'")])
      out.push([
        "purge batch: finished tasks older than 7 days",
        yield* purge("tasks", "updated_at", "status <> 'pending' AND updated_at < now() - interval '7 days'")
      ])
      out.push(["purge batch: expired idempotency keys", yield* purge("idempotency_keys", "expires_at", "expires_at <= now()")])
      return out
    }))
    say("### Plans on the filled tables\n")
    say(
      "`EXPLAIN (ANALYZE, BUFFERS)` of the statements of a get and a list page (bench/postgres/pg-statements.ts), and of the row selection of a purge batch (packages/postgres/src/internal/purge.ts). The table prefix is the run's.\n"
    )
    for (const [name, text] of plans) {
      const seq = /Seq Scan/.test(text)
      say(`#### ${name}${seq ? " (SEQUENTIAL SCAN)" : ""}\n\n\`\`\`\n${text}\n\`\`\`\n`)
    }

    const [tableRows, indexRows] = await runSql(Effect.all([tableSizes(prefix), indexSizes(prefix)]))
    say("### Table and index sizes (filled)\n")
    say("| table | rows (estimate) | table | indexes |")
    say("|---|---:|---:|---:|")
    for (const r of tableRows.filter((r) => Number(r.table_bytes) > 1 << 20)) {
      say(`| ${r.name.replace(prefix, "tender_")} | ${formatNumber(Number(r.rows))} | ${mib(Number(r.table_bytes))} | ${mib(Number(r.index_bytes))} |`)
    }
    say("\n| index | size |")
    say("|---|---:|")
    for (const r of indexRows.filter((r) => Number(r.bytes) > 1 << 20)) say(`| ${r.name.replace(prefix, "tender_")} | ${mib(Number(r.bytes))} |`)

    // The purge, while a get is driven at the server: windows of `seconds` until it ends.
    const before = await load({ url: `${server.url}/payment_intents/${full.firstId}`, headers: { authorization: basic(demoKey) } })
    const purgeStart = Date.now()
    let done = false
    const purging = runSql(purgeTimed(prefix)).finally(() => {
      done = true
    })
    const windows: Array<{ rps: number; p50: number; p99: number }> = []
    while (!done) windows.push(await load({ url: `${server.url}/payment_intents/${full.firstId}`, headers: { authorization: basic(demoKey) } }))
    const purged = await purging
    const purgeSeconds = (Date.now() - purgeStart) / 1000
    const rowsPurged = Object.values(purged.total).reduce((a, b) => a + b, 0)
    say(`\n### The retention purge under load\n`)
    say(
      `Everything due purged with the default options (Maintenance.defaults: batches of ${formatNumber(Maintenance.defaults.batchSize)} rows per kind, ${
        Duration.toMillis(Maintenance.defaults.pause)
      } ms apart): ${Object.entries(purged.total).map(([k, v]) => `${formatNumber(v)} ${k}`).join(", ")}; ${formatNumber(rowsPurged)} rows in ${
        formatNumber(purgeSeconds, 1)
      } s (${formatNumber(rowsPurged / purgeSeconds)} rows/s), ${purged.times.length} batches, each batch (up to 5 statements) p50 ${
        formatNumber(percentile(purged.times, 0.5), 1)
      } ms, p99 ${formatNumber(percentile(purged.times, 0.99), 1)} ms, max ${formatNumber(Math.max(...purged.times), 1)} ms.`
    )
    say(`A get by id driven at the server meanwhile, in windows of ${seconds} s:\n`)
    say("| | req/s | p50 ms | p99 ms | p99 / p99 before |")
    say("|---|---:|---:|---:|---:|")
    say(`| before the purge | ${formatNumber(before.rps)} | ${ms(before.p50)} | ${ms(before.p99)} | 1.00 |`)
    windows.forEach((w, i) =>
      say(`| during, window ${i + 1} | ${formatNumber(w.rps)} | ${ms(w.p50)} | ${ms(w.p99)} | ${formatNumber(w.p99 / before.p99, 2)} |`)
    )
    const afterPurge = await runSql(
      Effect.flatMap(
        SqlClient,
        (sql) => Effect.forEach(["events", "idempotency_keys", "tasks", "webhook_attempts"], (t) => sql.unsafe(`ANALYZE ${prefix}${t}`))
      ).pipe(
        Effect.zipRight(tableSizes(prefix))
      )
    )
    say(
      `\nAfter the purge (before vacuum returns the space): ${
        afterPurge.filter((r) => Number(r.table_bytes) > 1 << 20).map((r) => `${r.name.replace(prefix, "tender_")} ${formatNumber(Number(r.rows))} rows`).join(
          ", "
        )
      }.`
    )
  } finally {
    if (emptyServer !== undefined) await stopServer(emptyServer)
    if (server !== undefined) await stopServer(server)
    dropPrefix(emptyPrefix, databaseUrl)
    dropPrefix(prefix, databaseUrl)
  }
  if (argv.includes("--write")) {
    const path = resolve(import.meta.dirname, "..", "..", "docs", "scale.md")
    // The hand-written part (from "## Notes" on) stays.
    writeFileSync(path, lines.join("\n") + "\n" + readNotes(path))
    process.stdout.write(`\nwrote ${path}\n`)
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n")
  process.exit(1)
})
