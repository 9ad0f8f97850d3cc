/**
 * The scenarios of `npm run bench` against the demo server: a create with unique keys, an
 * idempotent replay, a get by id, a list's first page of 25, and pages 1 and 1,000 of 10.
 * bench/http/run.ts measures them against its ceilings, bench/postgres/scale.ts on empty tables
 * against filled ones.
 */
import { basic, demoKey, promptpay } from "@tender/repo-test-support"
import type autocannon from "autocannon"
import { loadOn, type Measured, seconds } from "../shared/load.js"
import { type Contender, interleaved } from "../shared/rounds.js"

export const deepPages = 1000
export const deepPageSize = 10

/** The demo merchant's credentials, as every scenario sends them. */
export const demo = basic(demoKey)
/** The body of every create. */
export const createBody = JSON.stringify(promptpay)

export const json = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, { ...init, headers: { authorization: demo, "content-type": "application/json", ...init.headers } })
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<any>
}

/** The scenarios of one run, in the order they are measured. */
export const scenarioKeys = ["create", "replay", "get", "listFirst", "listDeep", "listShallow"] as const
export type ScenarioKey = typeof scenarioKeys[number]

/**
 * Every scenario against one server, or against several on one database with the load spread
 * over them, as a contender: made ready by storing the intent a get reads and the key a replay
 * repeats. Page 1,000's cursor is walked once, before that scenario's first round.
 */
export const scenarioContenders = async (urls: ReadonlyArray<string>) => {
  const url = urls[0]!
  let n = 0
  const run = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
  const first = await json(`${url}/payment_intents`, { method: "POST", body: createBody, headers: { "idempotency-key": `bench-${run}-replay` } })
  const on = (opts: (url: string) => autocannon.Options): Contender => (duration) => loadOn(urls, (url) => ({ ...opts(url), duration }))
  let deepCursor: Promise<string> | undefined
  const walk = async () => {
    let cursor: string | null = null
    for (let page = 0; page < deepPages; page++) {
      const body: { next_cursor: string | null } = await json(`${url}/payment_intents?limit=${deepPageSize}${cursor ? `&cursor=${cursor}` : ""}`)
      if (body.next_cursor === null) throw new Error(`only ${page + 1} pages of ${deepPageSize}: create more intents first`)
      cursor = body.next_cursor
    }
    return cursor!
  }
  const contenders: Record<ScenarioKey, Contender> = {
    create: on((url) => ({
      url: `${url}/payment_intents`,
      method: "POST",
      headers: { authorization: demo, "content-type": "application/json" },
      body: createBody,
      requests: [{
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": `bench-${run}-${++n}` } })
      }]
    })),
    replay: on((url) => ({
      url: `${url}/payment_intents`,
      method: "POST",
      headers: { authorization: demo, "content-type": "application/json", "idempotency-key": `bench-${run}-replay` },
      body: createBody
    })),
    get: on((url) => ({ url: `${url}/payment_intents/${first.id}`, headers: { authorization: demo } })),
    listFirst: on((url) => ({ url: `${url}/payment_intents?limit=25`, headers: { authorization: demo } })),
    listDeep: async (duration) => {
      const cursor = await (deepCursor ??= walk())
      return on((url) => ({ url: `${url}/payment_intents?limit=${deepPageSize}&cursor=${cursor}`, headers: { authorization: demo } }))(duration)
    },
    listShallow: on((url) => ({ url: `${url}/payment_intents?limit=${deepPageSize}`, headers: { authorization: demo } }))
  }
  return { firstId: first.id as string, contenders }
}

/** What each scenario is measured against, in the same rounds (`interleaved`): given the intent a get reads. */
export type Against = (firstId: string) => Partial<Record<ScenarioKey, ReadonlyArray<Contender>>>

/**
 * Every scenario measured in turn (`scenarioContenders`), each in alternating rounds with what
 * `against` names for it, whose results come back in `paired`; a scenario with nothing against
 * it is one load of `BENCH_SECONDS`.
 */
export const scenarios = async (urls: ReadonlyArray<string>, against: Against = () => ({})) => {
  const { firstId, contenders } = await scenarioContenders(urls)
  const counterparts = against(firstId)
  const paired: Partial<Record<ScenarioKey, ReadonlyArray<Measured>>> = {}
  const own = {} as Record<ScenarioKey, Measured>
  for (const key of scenarioKeys) {
    const others = counterparts[key] ?? []
    if (others.length === 0) {
      own[key] = await contenders[key](seconds)
      continue
    }
    const [mine, ...theirs] = await interleaved([contenders[key], ...others])
    own[key] = mine!
    paired[key] = theirs
  }
  return { ...own, firstId, paired }
}

/** Make sure there are enough intents for 1,000 pages. */
export const fill = async (url: string, count: number) => {
  const batch = 32
  for (let i = 0; i < count; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => json(`${url}/payment_intents`, { method: "POST", body: createBody })))
  }
}
