/**
 * The fair claim on MongoDB (src/internal/taskClaims.ts) and its wake-ups (src/internal/wakeups.ts),
 * without a server: the filters and pipelines against the documents the adapter writes, and the
 * claim's control flow over a stand-in collection that answers those reads as the server would
 * (races against a real server run in the contract suite where `MONGODB_URL` is given).
 */
import { describe, expect, it } from "@effect/vitest"
import { Task } from "@tender/core"
import { Effect, Fiber, Schedule, Stream } from "effect"
import { ChangeStream, type Collection, type Document, MongoServerError } from "mongodb"
import { EventEmitter } from "node:events"
import { toDocument } from "../src/internal/documents.js"
import { claimIndexes } from "../src/internal/indexes.js"
import * as Claims from "../src/internal/taskClaims.js"
import * as Wakeups from "../src/internal/wakeups.js"
import { matches, taskRecord } from "./fake.js"

const t0 = Date.UTC(2026, 10, 22)
const delivery = (id: string, merchantId: string, targetId: string, over: Partial<Task.TaskRecord> = {}) =>
  taskRecord(t0, { id, merchantId, kind: "webhook.deliver", resourceId: `evt_${id}`, targetId, ...over })

/** The reads of the claim, answered over `docs` as the server answers them; `onUpdate` may refuse or race. */
const standIn = (docs: Array<Document>, onUpdate: (id: string, n: number) => "take" | "lost" | "fail" = () => "take") => {
  let updates = 0
  const sortBy = (spec: Record<string, number>) => (a: Document, b: Document) => {
    for (const k of Object.keys(spec)) {
      const x = a[k] instanceof Date ? a[k].getTime() : a[k]
      const y = b[k] instanceof Date ? b[k].getTime() : b[k]
      if (x < y) return -1
      if (x > y) return 1
    }
    return 0
  }
  const aggregate = (pipeline: ReadonlyArray<Document>) => {
    let rows = [...docs]
    for (const stage of pipeline) {
      if (stage["$match"] !== undefined) rows = rows.filter((d) => matches(d, stage["$match"]))
      else if (stage["$sort"] !== undefined) rows.sort(sortBy(stage["$sort"]))
      else if (stage["$group"] !== undefined) {
        const field = String(stage["$group"]._id).slice(1)
        rows = [...new Set(rows.map((d) => d[field]))].map((v) => ({ _id: v }))
      } else if (stage["$limit"] !== undefined) rows = rows.slice(0, stage["$limit"])
      else throw new Error(`stand-in: ${JSON.stringify(stage)}`)
    }
    return { toArray: async () => rows }
  }
  return {
    aggregate,
    find: (filter: Document, options: { sort: Record<string, number>; limit: number }) => ({
      toArray: async () => docs.filter((d) => matches(d, filter)).sort(sortBy(options.sort)).slice(0, options.limit).map((d) => ({ id: d["id"] }))
    }),
    countDocuments: async (filter: Document) => docs.filter((d) => matches(d, filter)).length,
    findOneAndUpdate: async (filter: Document, update: Document) => {
      const doc = docs.find((d) => matches(d, filter))
      if (doc === undefined) return null
      const what = onUpdate(String(doc["id"]), ++updates)
      if (what === "fail") throw new MongoServerError({ ok: 0, code: 6, codeName: "HostUnreachable", errmsg: "stand-in" } as never)
      Object.assign(doc, update["$set"])
      for (const [k, v] of Object.entries(update["$inc"] as Record<string, number>)) doc[k] = (doc[k] ?? 0) + v
      // Another claimer took it first: it holds the lease now.
      if (what === "lost") doc["lease_owner"] = "other"
      return what === "lost" ? null : { ...doc }
    }
  } as unknown as Collection<Document>
}

const claim = (docs: Array<Document>, req: Partial<Task.ClaimRequest> & { pool: Task.Pool }, onUpdate?: Parameters<typeof standIn>[1]) =>
  Effect.runPromise(Claims.claimPool(standIn(docs, onUpdate), { now: t0, owner: "w", leaseMillis: 60_000, limit: 4, ...req }, req.pool))

describe("tasks on MongoDB: the fair claim", () => {
  it("every task document carries its pool, and the claim's partial indexes select on it by equality (a partial filter has no $ne)", () => {
    expect(toDocument(Task.table, taskRecord(t0))["pool"]).toBe("money")
    expect(toDocument(Task.table, delivery("task_d", "mch_a", "we_1"))["pool"]).toBe("webhooks")
    for (const index of claimIndexes("tender_tasks")) {
      expect(JSON.stringify(index.partialFilterExpression)).not.toContain("$ne")
      expect(index.partialFilterExpression?.["status"]).toBe("pending")
    }
    // The ring's reads and the candidates' filters include the partial filter of the index that serves them.
    const { up } = Claims.ringPipelines("webhooks", { merchant_id: "mch_a" }, "target_id", "we_", 64)
    expect(up[0]).toStrictEqual({ $match: { status: "pending", pool: "webhooks", merchant_id: "mch_a", target_id: { $gt: "we_" } } })
    expect(up.slice(1)).toStrictEqual([{ $sort: { merchant_id: 1, target_id: 1 } }, { $group: { _id: "$target_id" } }, { $sort: { _id: 1 } }, { $limit: 64 }])
    expect(Claims.candidatesFilter("money", { merchant_id: "mch_a" }, t0)).toMatchObject(Claims.pending("money"))
  })

  it("a claim goes round the merchants before any merchant's second task, and round a merchant's endpoints, at most the bound in flight per endpoint", async () => {
    const docs = [
      ...Array.from({ length: 6 }, (_, i) => delivery(`task_a${i}`, "mch_a", i < 3 ? "we_hang" : "we_ok", { dueAt: t0 - 100 + i })),
      delivery("task_held", "mch_a", "we_hang", { dueAt: t0 - 200, leaseOwner: "w0", leaseUntil: t0 + 5_000 }),
      delivery("task_b0", "mch_b", "we_b", { dueAt: t0 })
    ].map((t) => toDocument(Task.table, t))
    const claimed = await claim(docs, { pool: "webhooks", limit: 4, perEndpoint: 2 })
    // Round 1: a's first (its ring: we_hang, we_ok), b's; round 2: a's second (we_ok's first).
    expect(claimed.map((t) => t.id)).toStrictEqual(["task_a0", "task_b0", "task_a3", "task_a4"])
    // we_hang had one in flight: only one more was taken.
    expect(claimed.filter((t) => t.targetId === "we_hang")).toHaveLength(1)
  })

  it("a merchant gets no more deliveries than its bound less those in flight, whatever its endpoints' room; the next merchant still gets its own", async () => {
    const docs = [
      ...Array.from({ length: 9 }, (_, i) => delivery(`task_a${i}`, "mch_a", `we_a${i}`, { dueAt: t0 - 100 + i })),
      delivery("task_held", "mch_a", "we_held", { dueAt: t0 - 200, leaseOwner: "w0", leaseUntil: t0 + 5_000 }),
      delivery("task_b0", "mch_b", "we_b", { dueAt: t0 })
    ].map((t) => toDocument(Task.table, t))
    const claimed = await claim(docs, { pool: "webhooks", limit: 16, perEndpoint: 2, perMerchant: 4 })
    // mch_a had one in flight: 3 more, though 9 of its endpoints had room; mch_b's one.
    expect(claimed.filter((t) => t.merchantId === "mch_a")).toHaveLength(3)
    expect(claimed.map((t) => t.id)).toContain("task_b0")
  })

  it("a claim that loses candidates to another claimer reads again and does not come back short while work is due", async () => {
    const docs = Array.from(
      { length: 12 },
      (_, i) => toDocument(Task.table, taskRecord(t0, { id: `task_${String(i).padStart(2, "0")}`, merchantId: `mch_${i % 3}` }))
    )
    const claimed = await claim(docs, { pool: "money", limit: 4 }, (_id, n) => (n <= 6 ? "lost" : "take"))
    expect(claimed).toHaveLength(4)
    expect(new Set(claimed.map((t) => t.id)).size).toBe(4)
  })

  it("a failed update returns the tasks the claim leased already, never drops them", async () => {
    const docs = Array.from({ length: 4 }, (_, i) => toDocument(Task.table, taskRecord(t0, { id: `task_${i}`, merchantId: `mch_${i}` })))
    const claimed = await claim(docs, { pool: "money", limit: 4 }, (_id, n) => (n === 3 ? "fail" : "take"))
    expect(claimed.map((t) => t.id)).toStrictEqual(["task_0", "task_1"])
    expect(claimed.every((t) => t.leaseOwner === "w")).toBe(true)
  })
})

/** A change stream as the driver's emits its events (the names are the driver's own constants). */
class StandInStream extends EventEmitter {
  closed = false
  close = async () => {
    this.closed = true
  }
}

describe("tasks on MongoDB: wake-ups", () => {
  it("wake once when the stream is open, on every change, and again once when a stream that failed is open again; never end", async () => {
    const opened: Array<StandInStream> = []
    const stream = Wakeups.listen(() => {
      const s = new StandInStream()
      opened.push(s)
      return s
    }, Schedule.spaced("1 millis"))
    const woken: Array<number> = []
    const fiber = Effect.runFork(Stream.runForEach(stream, () => Effect.sync(() => woken.push(opened.length))))
    const settle = () => new Promise((r) => setTimeout(r, 20))
    /** Until `done` holds: the stream re-opens on the runtime's own time. */
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await settle()
    }
    await until(() => opened.length === 1)
    opened[0]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, { _data: "a" })
    opened[0]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, { _data: "b" })
    opened[0]!.emit(ChangeStream.CHANGE, { operationType: "insert" })
    await until(() => woken.length === 2)
    expect(woken).toStrictEqual([1, 1])
    opened[0]!.emit(ChangeStream.ERROR, new MongoServerError({ ok: 0, code: 280, codeName: "ChangeStreamFatalError", errmsg: "stand-in" } as never))
    await until(() => opened.length === 2)
    expect(opened).toHaveLength(2)
    expect(opened[0]!.closed).toBe(true)
    opened[1]!.emit(ChangeStream.RESUME_TOKEN_CHANGED, { _data: "c" })
    opened[1]!.emit(ChangeStream.CHANGE, { operationType: "insert" })
    await until(() => woken.length === 4)
    expect(woken).toStrictEqual([1, 1, 2, 2])
    // A stream closed under it is opened again too.
    opened[1]!.emit(ChangeStream.CLOSE)
    await until(() => opened.length === 3)
    expect(opened).toHaveLength(3)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(opened[2]!.closed).toBe(true)
  })
})
