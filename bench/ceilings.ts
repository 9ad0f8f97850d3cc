/**
 * The PostgreSQL ceilings of `npm run bench` (issue 22): the get, list page of 25, create and
 * replay scenarios driven at (a) bench/ceiling-effect-server.ts (HttpApi + @effect/sql-pg) and
 * (b) bench/ceiling-pg-server.ts (node:http + pg), both running Tender's own statements
 * (bench/pg-statements.ts) on the tables Tender migrated and seeded in the same run.
 */
import type autocannon from "autocannon"

export interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  /** Every 2xx response's time in ms, as measured (bench/run.ts `load`). */
  readonly latencies?: ReadonlyArray<number>
}

export interface CeilingRun {
  readonly get: Measured
  readonly listFirst: Measured
  readonly create: Measured
  readonly replay: Measured
}

export const ceilingServers = [
  { entry: "bench/ceiling-effect-server.ts", name: "(a) HttpApi + @effect/sql-pg" },
  { entry: "bench/ceiling-pg-server.ts", name: "(b) node:http + pg" }
] as const

/** The four scenarios against a ceiling server, with the same requests Tender gets. */
export const ceilingScenarios = async (
  url: string,
  intentId: string,
  load: (opts: autocannon.Options) => Promise<Measured>,
  headers: { readonly authorization: string },
  createBody: string
): Promise<CeilingRun> => {
  const json = { ...headers, "content-type": "application/json" }
  const run = `${process.pid}-${Date.now()}`
  let n = 0
  const create = await load({
    url: `${url}/payment_intents`,
    method: "POST",
    headers: json,
    body: createBody,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": `ceiling-${run}-${++n}` } }) }]
  })
  const first = await fetch(`${url}/payment_intents`, { method: "POST", body: createBody, headers: { ...json, "idempotency-key": `ceiling-${run}-replay` } })
  if (first.status !== 201) throw new Error(`ceiling create: ${first.status} ${await first.text()}`)
  const replay = await load({ url: `${url}/payment_intents`, method: "POST", headers: { ...json, "idempotency-key": `ceiling-${run}-replay` }, body: createBody })
  const get = await load({ url: `${url}/payment_intents/${intentId}`, headers })
  const listFirst = await load({ url: `${url}/payment_intents?limit=25`, headers })
  return { get, listFirst, create, replay }
}
