/**
 * The PostgreSQL ceilings of `npm run bench`: the get, list page of 25, create and
 * replay scenarios driven at (a) bench/postgres/ceiling-effect-server.ts (HttpApi + @effect/sql-pg) and
 * (b) bench/postgres/ceiling-pg-server.ts (node:http + pg), both running Tender's own statements
 * (bench/postgres/pg-statements.ts) on the tables Tender migrated and seeded in the same run.
 */
import { load, type Measured } from "../shared/load.js"
import type { Contender } from "../shared/rounds.js"

export interface CeilingRun {
  readonly get: Measured
  readonly listFirst: Measured
  readonly create: Measured
  readonly replay: Measured
}

export const ceilingServers = [
  { entry: "bench/postgres/ceiling-effect-server.ts", name: "(a) HttpApi + @effect/sql-pg" },
  { entry: "bench/postgres/ceiling-pg-server.ts", name: "(b) node:http + pg" }
] as const

/**
 * The four scenarios against a ceiling server, with the same requests Tender gets, as contenders
 * measured in the same rounds as Tender's (bench/shared/rounds.ts `interleaved`). The replay's key is
 * stored by one create before its first round.
 */
export const ceilingContenders = (
  url: string,
  intentId: string,
  headers: { readonly authorization: string },
  createBody: string
): Record<keyof CeilingRun, Contender> => {
  const json = { ...headers, "content-type": "application/json" }
  const run = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
  let n = 0
  let stored: Promise<void> | undefined
  const storeReplayKey = () =>
    stored ??= fetch(`${url}/payment_intents`, { method: "POST", body: createBody, headers: { ...json, "idempotency-key": `ceiling-${run}-replay` } }).then(
      async (first) => {
        if (first.status !== 201) throw new Error(`ceiling create: ${first.status} ${await first.text()}`)
      }
    )
  return {
    create: (duration) =>
      load({
        url: `${url}/payment_intents`,
        method: "POST",
        headers: json,
        body: createBody,
        duration,
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": `ceiling-${run}-${++n}` } }) }]
      }),
    replay: async (duration) => {
      await storeReplayKey()
      return load({
        url: `${url}/payment_intents`,
        method: "POST",
        headers: { ...json, "idempotency-key": `ceiling-${run}-replay` },
        body: createBody,
        duration
      })
    },
    get: (duration) => load({ url: `${url}/payment_intents/${intentId}`, headers, duration }),
    listFirst: (duration) => load({ url: `${url}/payment_intents?limit=25`, headers, duration })
  }
}
