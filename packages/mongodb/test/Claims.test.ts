import { describe, expect, it } from "@effect/vitest"
import { Idempotency, MemoryStorage, ReplayCache, Storage } from "@tender/core"
import { Effect } from "effect"
import type { Collection, Document } from "mongodb"
import { vi } from "vitest"
import * as Claims from "../src/internal/claims.js"
import { step } from "../src/internal/commit.js"
import * as Purge from "../src/internal/purge.js"
import { FakeCollection, tenderCollections } from "./fake.js"

const t0 = Date.UTC(2026, 10, 22)
const key = { apiKeyId: "key_1", key: "k-1" }
const claim = (now: number, fingerprint = "a"): Storage.IdempotencyClaim => ({
  ...key,
  fingerprint,
  expiresAt: now + Idempotency.retentionMillis,
  lockedUntil: now + Idempotency.lockMillis
})
const ref = { merchantId: "mch_a", environment: "test", resourceType: "payment_intent", reference: "order-1" } as const
const refClaim = (now: number, resourceId = "dord_1", fingerprint = "b"): Storage.ReferenceClaim => ({
  ...ref,
  fingerprint,
  resourceId,
  lockedUntil: now + Idempotency.lockMillis
})

describe("claims: filters", () => {
  it("4.9.3 a key is found by (API key id, key)", () => {
    expect(Claims.keyFilter(key)).toStrictEqual({ api_key_id: "key_1", key: "k-1" })
  })

  it("4.9.4 4.9.6 a claim takes a key that expired, or its own request's claim whose lock lapsed", () => {
    expect(Claims.keyTakeoverFilter(claim(t0), t0 + 5)).toStrictEqual({
      api_key_id: "key_1",
      key: "k-1",
      $or: [
        { expires_at: { $lte: new Date(t0 + 5) } },
        { fingerprint: "a", response: null, locked_until: { $lte: new Date(t0 + 5) } }
      ]
    })
    expect(Claims.keyClaimUpdate(claim(t0))).toStrictEqual({
      $set: {
        fingerprint: "a",
        expires_at: new Date(t0 + Idempotency.retentionMillis),
        locked_until: new Date(t0 + Idempotency.lockMillis),
        response: null
      }
    })
  })

  it("4.9.6 a held key is fenced by the lock its claim set, and only while unanswered", () => {
    expect(Claims.heldKeyFilter({ ...key, lockedUntil: t0 })).toStrictEqual({ api_key_id: "key_1", key: "k-1", locked_until: new Date(t0), response: null })
  })

  it("D4 a reference claim takes only a never-completed, lapsed claim; a held one is fenced by its resource", () => {
    expect(Claims.referenceTakeoverFilter(refClaim(t0), t0)).toStrictEqual({
      merchant_id: "mch_a",
      environment: "test",
      resource_type: "payment_intent",
      reference: "order-1",
      completed: false,
      locked_until: { $lte: new Date(t0) }
    })
    expect(Claims.heldReferenceFilter({ ...ref, resourceId: "dord_9" })["resource_id"]).toBe("dord_9")
  })

  it("4.9.4 purging deletes keys with expires_at <= now; lapsed uncompleted references after the grace", () => {
    expect(Claims.expiredKeysFilter(t0)).toStrictEqual({ expires_at: { $lte: new Date(t0) } })
    expect(Claims.lapsedReferencesFilter(t0)).toStrictEqual({
      completed: false,
      locked_until: { $lte: new Date(t0 - Idempotency.claimGraceMillis) }
    })
  })
})

describe("claims: judging a key or reference a claim could not take", () => {
  const doc = (over: Document = {}): Document => ({
    api_key_id: "key_1",
    key: "k-1",
    fingerprint: "a",
    expires_at: new Date(t0 + Idempotency.retentionMillis),
    locked_until: new Date(t0 + 60_000),
    response: null,
    ...over
  })

  it("4.9.5 another fingerprint is a conflict, in flight or answered, even once its lock lapsed", () => {
    expect(Claims.judgeKey(doc(), claim(t0, "c"), t0 + 1)).toStrictEqual({ _tag: "KeyConflict" })
    expect(Claims.judgeKey(doc(), claim(t0, "c"), t0 + 61_000)).toStrictEqual({ _tag: "KeyConflict" })
  })

  it("4.9.4 an answered key replays its response", () => {
    const response = { status: 201, body: "{\"a\": 1}", request_id: "req_1" }
    expect(Claims.judgeKey(doc({ response }), claim(t0), t0 + 1)).toStrictEqual({
      _tag: "Replay",
      response: { status: 201, body: "{\"a\": 1}", requestId: "req_1" }
    })
  })

  it("4.9.6 a held key is in flight until its lock lapses", () => {
    expect(Claims.judgeKey(doc(), claim(t0), t0 + 59_999)).toStrictEqual({ _tag: "KeyInFlight" })
  })

  it("4.9.4 a key that expired, was deleted or lapsed in between is claimed again", () => {
    expect(Claims.judgeKey(null, claim(t0), t0)).toBe("retry")
    expect(Claims.judgeKey(doc(), claim(t0), t0 + Idempotency.retentionMillis)).toBe("retry")
    expect(Claims.judgeKey(doc(), claim(t0), t0 + 60_000)).toBe("retry")
  })

  it("D4 a completed reference is taken for good; an in-flight one until its lock lapses", () => {
    const r = { ...ref, fingerprint: "b", resource_id: "dord_1", locked_until: new Date(t0 + 60_000), completed: false }
    expect(Claims.judgeReference(r, refClaim(t0, "dord_2"), t0 + 1)).toStrictEqual({
      _tag: "ReferenceTaken",
      resourceId: "dord_1",
      sameFingerprint: true,
      inFlight: true
    })
    expect(Claims.judgeReference({ ...r, completed: true }, refClaim(t0, "dord_2", "z"), t0 + 10 ** 12)).toStrictEqual({
      _tag: "ReferenceTaken",
      resourceId: "dord_1",
      sameFingerprint: false,
      inFlight: false
    })
    expect(Claims.judgeReference(r, refClaim(t0), t0 + 60_000)).toBe("retry")
    expect(Claims.judgeReference(null, refClaim(t0), t0)).toBe("retry")
  })
})

// -- begin and the claim writes of commit, against the in-memory store as the reference, on
// collections that behave as the server documents (see fake.ts).

const c = tenderCollections

const makeFake = () => {
  const keys = new FakeCollection(["api_key_id", "key"])
  const refs = new FakeCollection(["merchant_id", "environment", "resource_type", "reference"])
  // With the process's replay cache in front, as MongoStorage runs them (ReplayCache).
  const replays = ReplayCache.make()
  const bare = Claims.make(keys as unknown as Collection<Document>, refs as unknown as Collection<Document>, replays)
  const claims = { begin: ReplayCache.cachedBegin(replays, bare.begin) }
  // Without retention cutoffs a purge touches only the keys and references.
  const none = new FakeCollection([]) as unknown as Collection<Document>
  const purge = Purge.make({
    keys: keys as unknown as Collection<Document>,
    references: refs as unknown as Collection<Document>,
    of: () => none
  })
  const commitOne = (w: Storage.Write) =>
    Effect.gen(function*() {
      const s = step(c, w)
      const coll = s.collection === c.idempotencyKeys ? keys : refs
      if (s.op === "update") {
        const r = yield* Effect.promise(() => coll.updateOne(s.filter, s.update))
        if (r.matchedCount === 0) return yield* Effect.fail(s.lost)
      } else if (s.op === "delete") {
        yield* Effect.promise(() => coll.deleteOne(s.filter))
      }
    })
  return { claims, keys, refs, commitOne, purge }
}

type Op =
  | { readonly _tag: "begin"; readonly request: Storage.BeginRequest }
  | { readonly _tag: "commit"; readonly write: Storage.Write }
  | { readonly _tag: "purge"; readonly now: number }

const outcomeOf = <A, E extends { readonly _tag: string }>(e: Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(e)).then((r) => (r._tag === "Left" ? { error: r.left._tag } : { ok: r.right }))

const runBoth = async (ops: ReadonlyArray<Op>) => {
  const memory = MemoryStorage.make()
  const fake = makeFake()
  for (const [i, op] of ops.entries()) {
    const [expected, actual] = op._tag === "begin"
      ? [await outcomeOf(memory.begin(op.request)), await outcomeOf(fake.claims.begin(op.request))]
      : op._tag === "commit"
      ? [await outcomeOf(memory.commit([op.write])), await outcomeOf(fake.commitOne(op.write))]
      : [await outcomeOf(memory.purgeExpired(op.now)), await outcomeOf(fake.purge(op.now))]
    expect(actual, `op ${i}: ${JSON.stringify(op)}`).toStrictEqual(op._tag === "commit" && "ok" in expected ? { ok: undefined } : expected)
  }
}

describe("claims: begin as the in-memory store answers it", () => {
  const begin = (request: Storage.BeginRequest): Op => ({ _tag: "begin", request })
  const commit = (write: Storage.Write): Op => ({ _tag: "commit", write })
  const held = (now: number) => ({ ...key, lockedUntil: now + Idempotency.lockMillis })
  const response = { status: 201, body: "{ \"odd\":  1 }", requestId: "req_1" }

  it("4.9.4 4.9.5 4.9.6 a key: proceed, in flight, conflict, replay, lapse and takeover, expiry", async () => {
    await runBoth([
      begin({ now: t0, idempotency: claim(t0) }),
      begin({ now: t0 + 1, idempotency: claim(t0 + 1) }),
      begin({ now: t0 + 2, idempotency: claim(t0 + 2, "c") }),
      begin({ now: t0 + 61_000, idempotency: claim(t0 + 61_000, "c") }),
      begin({ now: t0 + 61_000, idempotency: claim(t0 + 61_000) }),
      commit(Storage.Write.completeIdempotency(held(t0), response)),
      commit(Storage.Write.completeIdempotency(held(t0 + 61_000), response)),
      begin({ now: t0 + 62_000, idempotency: claim(t0 + 62_000) }),
      commit(Storage.Write.completeIdempotency(held(t0 + 61_000), response)),
      begin({ now: t0 + 61_000 + Idempotency.retentionMillis - 1, idempotency: claim(t0, "z") }),
      begin({ now: t0 + 61_000 + Idempotency.retentionMillis, idempotency: claim(t0 + 61_000 + Idempotency.retentionMillis, "z") }),
      begin({ now: t0 + 61_001 + Idempotency.retentionMillis, idempotency: claim(t0 + 61_001 + Idempotency.retentionMillis, "z") })
    ])
  })

  it("4.9.3 4.9.5 a key read completed once is answered from the process: a replay or a conflict makes no round trip", async () => {
    const fake = makeFake()
    await outcomeOf(fake.claims.begin({ now: t0, idempotency: claim(t0) }))
    await outcomeOf(fake.commitOne(Storage.Write.completeIdempotency(held(t0), response)))
    const spies = [vi.spyOn(fake.keys, "findOne"), vi.spyOn(fake.keys, "updateOne"), vi.spyOn(fake.refs, "updateOne")]
    const calls = () => spies.reduce((n, spy) => n + spy.mock.calls.length, 0)
    const first = calls()
    expect(await outcomeOf(fake.claims.begin({ now: t0 + 1, idempotency: claim(t0 + 1) }))).toStrictEqual({ ok: { _tag: "Replay", response } })
    expect(calls()).toBeGreaterThan(first)
    const read = calls()
    expect(await outcomeOf(fake.claims.begin({ now: t0 + 2, idempotency: claim(t0 + 2) }))).toStrictEqual({ ok: { _tag: "Replay", response } })
    expect(await outcomeOf(fake.claims.begin({ now: t0 + 3, idempotency: claim(t0 + 3, "c") }))).toStrictEqual({ ok: { _tag: "KeyConflict" } })
    expect(calls()).toBe(read)
    for (const spy of spies) spy.mockRestore()
  })

  it("4.9.7 a released key reaches a fresh handler; a stale claim's release is no release", async () => {
    await runBoth([
      begin({ now: t0, idempotency: claim(t0) }),
      begin({ now: t0 + 60_000, idempotency: claim(t0 + 60_000) }),
      commit(Storage.Write.releaseIdempotency(held(t0))),
      begin({ now: t0 + 60_001, idempotency: claim(t0 + 60_001) }),
      commit(Storage.Write.releaseIdempotency(held(t0 + 60_000))),
      begin({ now: t0 + 60_002, idempotency: claim(t0 + 60_002, "d") })
    ])
  })

  it("D4 a reference: taken while in flight and for good once completed; released; lapsed and taken over; completed by the wrong resource", async () => {
    await runBoth([
      begin({ now: t0, reference: refClaim(t0, "dord_1") }),
      begin({ now: t0 + 1, reference: refClaim(t0 + 1, "dord_2", "x") }),
      commit(Storage.Write.releaseReference({ ...ref, resourceId: "dord_other" })),
      begin({ now: t0 + 60_000, reference: refClaim(t0 + 60_000, "dord_3") }),
      commit(Storage.Write.completeReference({ ...ref, resourceId: "dord_1" })),
      commit(Storage.Write.completeReference({ ...ref, resourceId: "dord_3" })),
      commit(Storage.Write.releaseReference({ ...ref, resourceId: "dord_3" })),
      begin({ now: t0 + 10 ** 11, reference: refClaim(t0 + 10 ** 11, "dord_4") })
    ])
  })

  it("4.9 the key is judged first: a refused key leaves the reference untouched; a taken reference leaves the key claimed", async () => {
    const other = { ...key, key: "k-2" }
    await runBoth([
      begin({ now: t0, reference: refClaim(t0, "dord_1") }),
      begin({ now: t0 + 1, idempotency: { ...claim(t0 + 1), ...other }, reference: refClaim(t0 + 1, "dord_2") }),
      begin({ now: t0 + 2, idempotency: { ...claim(t0 + 2), ...other } }),
      begin({ now: t0 + 3, idempotency: claim(t0 + 3) }),
      begin({ now: t0 + 4, idempotency: claim(t0 + 4), reference: { ...refClaim(t0 + 4, "dord_5"), reference: "order-2" } }),
      begin({ now: t0 + 5, reference: { ...refClaim(t0 + 5, "dord_6"), reference: "order-2" } })
    ])
  })

  it("4.9.4 purging: expired keys and long-lapsed uncompleted references, counted", async () => {
    await runBoth([
      begin({ now: t0, idempotency: claim(t0) }),
      begin({ now: t0, reference: refClaim(t0, "dord_1") }),
      begin({ now: t0, reference: { ...refClaim(t0, "dord_2"), reference: "done" } }),
      commit(Storage.Write.completeReference({ ...ref, reference: "done", resourceId: "dord_2" })),
      { _tag: "purge", now: t0 + Idempotency.retentionMillis - 1 },
      { _tag: "purge", now: t0 + 60_000 + Idempotency.claimGraceMillis },
      begin({ now: t0 + 10 ** 11, reference: refClaim(t0 + 10 ** 11, "dord_9") }),
      begin({ now: t0 + 10 ** 11, reference: { ...refClaim(t0 + 10 ** 11, "dord_9"), reference: "done" } })
    ])
  })

  it("4.9 random sequences of begins, completions, releases and purges answer as the in-memory store", async () => {
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let run = 0; run < 40; run++) {
      const ops: Array<Op> = []
      let now = t0
      const claimsMade: Array<{ key?: Storage.IdempotencyClaim; ref?: Storage.ReferenceClaim }> = []
      for (let i = 0; i < 40; i++) {
        now += [0, 1, 30_000, 60_000, Idempotency.retentionMillis][random(5)]!
        const choice = random(10)
        if (choice < 5) {
          const k = random(3) === 0 ? undefined : { ...claim(now, "ab"[random(2)]!), key: `k-${random(2)}` }
          const r = random(3) === 0 ? undefined : { ...refClaim(now, `dord_${i}`, "xy"[random(2)]!), reference: `order-${random(2)}` }
          ops.push(begin({ now, idempotency: k, reference: r }))
          claimsMade.push({ ...(k === undefined ? {} : { key: k }), ...(r === undefined ? {} : { ref: r }) })
        } else if (choice < 9 && claimsMade.length > 0) {
          const made = claimsMade[random(claimsMade.length)]!
          const w = random(4)
          if (made.key !== undefined && w === 0) ops.push(commit(Storage.Write.completeIdempotency(made.key, response)))
          if (made.key !== undefined && w === 1) ops.push(commit(Storage.Write.releaseIdempotency(made.key)))
          if (made.ref !== undefined && w === 2) ops.push(commit(Storage.Write.completeReference(made.ref)))
          if (made.ref !== undefined && w === 3) ops.push(commit(Storage.Write.releaseReference(made.ref)))
        } else {
          ops.push({ _tag: "purge", now })
        }
      }
      await runBoth(ops)
    }
  })
})
