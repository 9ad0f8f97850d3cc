/**
 * The end of a crash-fuzz run: the target's health after it, and the summary table
 * `npm run fuzz` prints (docs/reliability.md, "Hostile inputs tried").
 */
import { promptpayNamed } from "@tender/repo-test-support"
import type { Tally, Target } from "./engine.js"
import { send } from "./engine.js"

const MiB = 1024 * 1024

/**
 * What the in-memory store keeps per stored create, as an allowance in the leak check: about
 * 7.3 KB per create with an `Idempotency-Key` (docs/reliability.md, "What a host must set"),
 * doubled. The store holds what it was asked to store; anything else must be given back.
 */
export const perCreate = 16 * 1024

/** The leak check's bound: the baseline, 64 MiB of slack, and what the store legitimately keeps. */
export const memoryBound = (baselineRss: number, created: number) => baselineRss + 64 * MiB + created * perCreate

export interface Health {
  readonly alive: boolean
  readonly exit?: string
  readonly createStatus?: number
  readonly rssBefore: number
  readonly rssAfter?: number
  readonly heapBefore?: number
  readonly heapAfter?: number
  readonly bound: number
}

/** Alive, creating (201), and its RSS after a GC within `memoryBound`. */
export const health = async (target: Target, before: NodeJS.MemoryUsage, tally: Tally): Promise<Health> => {
  const rssBefore = before.rss
  const bound = memoryBound(rssBefore, tally.created + 1)
  if (!target.alive()) return { alive: false, exit: await target.exited, rssBefore, bound }
  const created = await send(target.port, "POST", "/payment_intents", promptpayNamed)
  const after = await target.memory()
  return { alive: target.alive(), createStatus: created.status, rssBefore, rssAfter: after.rss, heapBefore: before.heapUsed, heapAfter: after.heapUsed, bound }
}

/** Failures that count: every one the oracle found, and a target that died or stopped creating or kept memory. */
export const problems = (tally: Tally, h: Health): Array<string> => [
  ...(h.alive ? [] : [`the target process died (${h.exit})`]),
  ...(h.alive && h.createStatus !== 201 ? [`a normal create after the run answered ${h.createStatus}`] : []),
  ...(h.rssAfter !== undefined && h.rssAfter > h.bound ? [`RSS after GC ${mib(h.rssAfter)} is over the bound ${mib(h.bound)}`] : []),
  ...tally.failures.map(({ failure, wire }) =>
    `${failure.kind} [${wire.category}] ${wire.label}: ${failure.detail.slice(0, 300)}\n    request head: ${JSON.stringify(wire.head.slice(0, 300))}`
  )
]

const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`

/** The summary table: requests and statuses by category, then the totals. */
export const summary = (tally: Tally, h: Health, seconds: number): string => {
  const rows = [...tally.byCategory.entries()].sort((a, b) => b[1].count - a[1].count)
  const count = (kind: string) => tally.failures.filter((f) => f.failure.kind === kind).length
  const lines = [
    "| input category | requests | result (status: count) |",
    "|---|---:|---|",
    ...rows.map(([category, { count, statuses }]) =>
      `| ${category} | ${count.toLocaleString("en")} | ${[...statuses.entries()].sort().map(([s, n]) => `${s}: ${n.toLocaleString("en")}`).join(", ")} |`
    ),
    "",
    `requests: ${tally.requests.toLocaleString("en")} in ${seconds.toFixed(0)} s`,
    `crashes (target died): ${h.alive ? 0 : 1}${h.exit === undefined ? "" : ` (${h.exit})`}`,
    `unexpected 5xx: ${count("5xx")}`,
    `4xx not in the D1 shape: ${count("not D1")}`,
    `dropped connections: ${tally.dropped} (unexpected: ${count("dropped")})`,
    `hangs: ${count("hang")}, malformed answers: ${count("malformed")}`,
    `created (201): ${tally.created}; normal create after the run: ${h.createStatus ?? "-"}`,
    `RSS after GC: before ${mib(h.rssBefore)}, after ${h.rssAfter === undefined ? "-" : mib(h.rssAfter)} (bound ${mib(h.bound)}); heap used ${
      h.heapBefore === undefined ? "-" : mib(h.heapBefore)
    } -> ${h.heapAfter === undefined ? "-" : mib(h.heapAfter)}`
  ]
  return lines.join("\n")
}
