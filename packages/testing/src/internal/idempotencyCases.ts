/**
 * Contract cases for idempotency keys (4.9, D5) and merchant_reference claims (4.9, D4):
 * reserve, complete, replay, conflict, in flight, release, expiry, lapse, and races.
 */
import { assert } from "@effect/vitest"
import { Idempotency, PaymentIntent, Storage } from "@tender/core"
import { Effect, Option } from "effect"
import type { ContractIt } from "./fixtures.js"
import { claim, commit, freshKey, freshScope, held, intent, oddResponse, referenceClaim, t0 } from "./fixtures.js"

const begin = (request: Storage.BeginRequest) => Effect.flatMap(Storage.Storage, (s) => s.begin(request))
const { Write } = Storage
const tags = (outcomes: ReadonlyArray<Storage.BeginOutcome>) => outcomes.map((o) => o._tag)
const count = (outcomes: ReadonlyArray<Storage.BeginOutcome>, tag: Storage.BeginOutcome["_tag"]) => outcomes.filter((o) => o._tag === tag).length

/** @internal */
export const idempotencyCases = (it: ContractIt, concurrency: number) => {
  it.effect("4.9.4 a completed key replays its stored status and body byte for byte", () =>
    Effect.gen(function*() {
      const key = freshKey()
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0) }))._tag, "Proceed")
      const response = oddResponse()
      yield* commit([Write.completeIdempotency(held(key, t0), response)])
      const replay = yield* begin({ now: t0 + 1000, idempotency: claim(key, t0 + 1000) })
      assert.deepStrictEqual(replay, { _tag: "Replay", response })
      // A 4xx is stored and replayed like a 2xx (D5).
      const key409 = freshKey()
      yield* begin({ now: t0, idempotency: claim(key409, t0) })
      const conflict = { status: 409, body: `{"error":{"code":"idempotency_conflict","message":"…"}}`, requestId: "req_409" }
      yield* commit([Write.completeIdempotency(held(key409, t0), conflict)])
      assert.deepStrictEqual(yield* begin({ now: t0 + 1, idempotency: claim(key409, t0 + 1) }), { _tag: "Replay", response: conflict })
    }))

  it.effect("4.9.5 same key with a different fingerprint is a conflict, before and after completion", () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0, "a".repeat(64)) })
      assert.strictEqual((yield* begin({ now: t0 + 1, idempotency: claim(key, t0 + 1, "c".repeat(64)) }))._tag, "KeyConflict")
      yield* commit([Write.completeIdempotency(held(key, t0), oddResponse())])
      assert.strictEqual((yield* begin({ now: t0 + 2, idempotency: claim(key, t0 + 2, "c".repeat(64)) }))._tag, "KeyConflict")
      // Even once the in-flight lock has lapsed, a different request never takes the key over.
      const open = freshKey()
      yield* begin({ now: t0, idempotency: claim(open, t0, "a".repeat(64)) })
      assert.strictEqual((yield* begin({ now: t0 + 61_000, idempotency: claim(open, t0 + 61_000, "c".repeat(64)) }))._tag, "KeyConflict")
    }))

  it.effect("4.9.6 same key while the first request is in flight is reported in flight", () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      assert.strictEqual((yield* begin({ now: t0 + 59_999, idempotency: claim(key, t0 + 59_999) }))._tag, "KeyInFlight")
    }))

  it.effect("4.9.6 an in-flight claim whose holder died lapses after its lock, and the retry takes it over", () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      assert.strictEqual((yield* begin({ now: t0 + 60_000, idempotency: claim(key, t0 + 60_000) }))._tag, "Proceed")
      // The new holder's lock counts from the takeover.
      assert.strictEqual((yield* begin({ now: t0 + 60_001, idempotency: claim(key, t0 + 60_001) }))._tag, "KeyInFlight")
    }))

  it.effect("4.9.6 a request that outlived its claim can neither answer for the key nor release it once a retry took it over", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      // The first request stalls past its lock; a retry takes the key over.
      assert.strictEqual((yield* begin({ now: t0 + 60_000, idempotency: claim(key, t0 + 60_000) }))._tag, "Proceed")
      const stale = intent(scope)
      const lost = yield* Effect.flip(commit([
        Write.insert(PaymentIntent.table, stale),
        Write.completeIdempotency(held(key, t0), oddResponse("req_stale"))
      ]))
      assert.strictEqual(lost._tag, "ClaimLost")
      // Nothing of it was written, and its release is no release.
      assert.isTrue(Option.isNone(yield* Effect.flatMap(Storage.Storage, (st) => st.get(PaymentIntent.table, scope, stale.id))))
      yield* commit([Write.releaseIdempotency(held(key, t0))])
      assert.strictEqual((yield* begin({ now: t0 + 60_003, idempotency: claim(key, t0 + 60_003) }))._tag, "KeyInFlight")
      // The retry answers, and its answer is the one replayed.
      const response = oddResponse("req_retry")
      yield* commit([Write.completeIdempotency(held(key, t0 + 60_000), response)])
      assert.deepStrictEqual(yield* begin({ now: t0 + 60_005, idempotency: claim(key, t0 + 60_005) }), { _tag: "Replay", response })
      // An answered key cannot be answered again, even by its own claim.
      const twice = yield* Effect.flip(commit([Write.completeIdempotency(held(key, t0 + 60_000), oddResponse())]))
      assert.strictEqual(twice._tag, "ClaimLost")
    }))

  it.effect("4.9.7 a released key reaches a fresh handler", () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      yield* commit([Write.releaseIdempotency(held(key, t0))])
      assert.strictEqual((yield* begin({ now: t0 + 1, idempotency: claim(key, t0 + 1, "d".repeat(64)) }))._tag, "Proceed")
    }))

  it.effect("4.9.4 a key expires 24 hours after the first request", () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      const response = oddResponse()
      yield* commit([Write.completeIdempotency(held(key, t0), response)])
      const expiry = t0 + Idempotency.retentionMillis
      const before = yield* begin({ now: expiry - 1, idempotency: claim(key, expiry - 1) })
      assert.deepStrictEqual(before, { _tag: "Replay", response })
      // From then on the key is new again, whatever the request.
      const after = yield* begin({ now: expiry, idempotency: claim(key, expiry, "e".repeat(64)) })
      assert.strictEqual(after._tag, "Proceed")
      assert.strictEqual((yield* begin({ now: expiry + 1, idempotency: claim(key, expiry + 1, "e".repeat(64)) }))._tag, "KeyInFlight")
    }))

  it.effect("4.9.3 equal key strings under different API keys do not collide", () =>
    Effect.gen(function*() {
      const a = freshKey()
      const b = { apiKeyId: `${a.apiKeyId}x`, key: a.key }
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim(a, t0) }))._tag, "Proceed")
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim(b, t0, "9".repeat(64)) }))._tag, "Proceed")
      yield* commit([Write.completeIdempotency(held(a, t0), oddResponse("req_a"))])
      const replayB = yield* begin({ now: t0 + 1, idempotency: claim(b, t0 + 1, "9".repeat(64)) })
      assert.strictEqual(replayB._tag, "KeyInFlight")
    }))

  it.effect(`4.9.6 ${concurrency} concurrent reservations of one key: exactly one proceeds, the rest are in flight`, () =>
    Effect.gen(function*() {
      const key = freshKey()
      const outcomes = yield* Effect.all(
        Array.from({ length: concurrency }, () => begin({ now: t0, idempotency: claim(key, t0) })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(count(outcomes, "Proceed"), 1, tags(outcomes).join(","))
      assert.strictEqual(count(outcomes, "KeyInFlight"), concurrency - 1, tags(outcomes).join(","))
    }))

  it.effect(`4.9.6 ${concurrency} concurrent reservations of one key after it lapsed: still exactly one proceeds`, () =>
    Effect.gen(function*() {
      const key = freshKey()
      yield* begin({ now: t0, idempotency: claim(key, t0) })
      const later = t0 + 120_000
      const outcomes = yield* Effect.all(
        Array.from({ length: concurrency }, () => begin({ now: later, idempotency: claim(key, later) })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(count(outcomes, "Proceed"), 1, tags(outcomes).join(","))
    }))
}

/** @internal */
export const purgeCases = (it: ContractIt) => {
  it.effect("4.9.4 purging deletes keys whose 24 hours are over and keeps every live one", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      // A point far in the future, so keys other cases left behind are purged too and counts are exact for ours.
      const base = t0 + 100 * 24 * 60 * 60 * 1000 + Math.floor(Math.random() * 1e6)
      yield* storage.purgeExpired(base + Idempotency.retentionMillis + 10)
      const expired = freshKey()
      const live = freshKey()
      const inFlightLive = freshKey()
      yield* begin({ now: base, idempotency: claim(expired, base) })
      yield* commit([Write.completeIdempotency(held(expired, base), oddResponse())])
      yield* begin({ now: base + 10, idempotency: claim(live, base + 10) })
      yield* commit([Write.completeIdempotency(held(live, base + 10), oddResponse())])
      yield* begin({ now: base + 10, idempotency: claim(inFlightLive, base + 10) })
      const at = base + Idempotency.retentionMillis
      const purged = yield* storage.purgeExpired(at)
      assert.strictEqual(purged.idempotencyKeys, 1)
      // The purged key is new again; the others still answer as before.
      assert.strictEqual((yield* begin({ now: at, idempotency: claim(expired, at, "f".repeat(64)) }))._tag, "Proceed")
      assert.strictEqual((yield* begin({ now: at, idempotency: claim(live, at) }))._tag, "Replay")
      assert.strictEqual((yield* begin({ now: at, idempotency: claim(inFlightLive, at, "f".repeat(64)) }))._tag, "KeyConflict")
    }))

  it.effect("4.9 merchant_reference 1: purging never deletes a completed reference, only claims long lapsed", () =>
    Effect.gen(function*() {
      const storage = yield* Storage.Storage
      const scope = freshScope()
      const base = t0 + 200 * 24 * 60 * 60 * 1000 + Math.floor(Math.random() * 1e6)
      const done = referenceClaim(scope, "done", base)
      const abandoned = referenceClaim(scope, "abandoned", base)
      const recent = referenceClaim(scope, "recent", base + Idempotency.claimGraceMillis)
      for (const c of [done, abandoned]) yield* begin({ now: base, reference: c })
      yield* begin({ now: base + Idempotency.claimGraceMillis, reference: recent })
      yield* commit([Write.completeReference({ ...done })])
      const at = base + 60_000 + Idempotency.claimGraceMillis
      yield* storage.purgeExpired(at)
      const far = at + 10 * 365 * 24 * 60 * 60 * 1000
      const again = (c: Storage.ReferenceClaim, now: number) => begin({ now, reference: { ...c, resourceId: `${c.resourceId}x`, lockedUntil: now + 60_000 } })
      assert.deepStrictEqual(yield* again(done, far), { _tag: "ReferenceTaken", resourceId: done.resourceId, sameFingerprint: true, inFlight: false })
      // The abandoned claim is gone; the recent one (lapsed, within its grace) is still there to take over.
      assert.strictEqual((yield* again(abandoned, at))._tag, "Proceed")
      const before = yield* Effect.flatMap(Storage.Storage, (s) => s.purgeExpired(at))
      assert.strictEqual(before.referenceClaims, 0)
      assert.strictEqual((yield* again(recent, at))._tag, "Proceed")
    }))
}

/** @internal */
export const referenceCases = (it: ContractIt, concurrency: number) => {
  it.effect("4.9 merchant_reference 1: unique per merchant, environment and resource type", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const reference = "order-1"
      const claims = [
        referenceClaim(scope, reference, t0),
        referenceClaim({ ...scope, environment: "live" }, reference, t0),
        referenceClaim(freshScope(), reference, t0),
        referenceClaim(scope, reference, t0, { resourceType: "topup_intent" }),
        referenceClaim(scope, reference, t0, { resourceType: "payout_intent" })
      ]
      for (const c of claims) assert.strictEqual((yield* begin({ now: t0, reference: c }))._tag, "Proceed")
      const again = yield* begin({ now: t0 + 1, reference: referenceClaim(scope, reference, t0 + 1) })
      assert.strictEqual(again._tag, "ReferenceTaken")
    }))

  it.effect("4.9 merchant_reference 1-3: a created resource holds its reference with no time limit", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const first = referenceClaim(scope, "order-2", t0)
      yield* begin({ now: t0, reference: first })
      // While in flight it is taken, and says so.
      const inFlight = yield* begin({ now: t0 + 1, reference: referenceClaim(scope, "order-2", t0 + 1) })
      assert.deepStrictEqual(inFlight, { _tag: "ReferenceTaken", resourceId: first.resourceId, sameFingerprint: true, inFlight: true })
      yield* commit([Write.completeReference({ ...first, resourceId: first.resourceId })])
      const tenYears = t0 + 10 * 365 * 24 * 60 * 60 * 1000
      const same = yield* begin({ now: tenYears, reference: referenceClaim(scope, "order-2", tenYears) })
      assert.deepStrictEqual(same, { _tag: "ReferenceTaken", resourceId: first.resourceId, sameFingerprint: true, inFlight: false })
      const changed = yield* begin({ now: tenYears, reference: referenceClaim(scope, "order-2", tenYears, { fingerprint: "0".repeat(64) }) })
      assert.deepStrictEqual(changed, { _tag: "ReferenceTaken", resourceId: first.resourceId, sameFingerprint: false, inFlight: false })
      // Completed references cannot be released.
      yield* commit([Write.releaseReference({ ...first, resourceId: first.resourceId })])
      assert.strictEqual((yield* begin({ now: tenYears, reference: referenceClaim(scope, "order-2", tenYears) }))._tag, "ReferenceTaken")
    }))

  it.effect("4.9 merchant_reference: a released reference is free again; a release by another resource changes nothing", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const first = referenceClaim(scope, "order-3", t0)
      yield* begin({ now: t0, reference: first })
      yield* commit([Write.releaseReference({ ...first, resourceId: "dord_someoneelse000000000000" })])
      assert.strictEqual((yield* begin({ now: t0 + 1, reference: referenceClaim(scope, "order-3", t0 + 1) }))._tag, "ReferenceTaken")
      yield* commit([Write.releaseReference({ ...first, resourceId: first.resourceId })])
      const next = referenceClaim(scope, "order-3", t0 + 2)
      assert.strictEqual((yield* begin({ now: t0 + 2, reference: next }))._tag, "Proceed")
      // Completing with the wrong resource id is refused whole, and does not complete the new claim.
      const wrong = yield* Effect.flip(commit([Write.completeReference({ ...next, resourceId: first.resourceId })]))
      assert.strictEqual(wrong._tag, "UniqueViolation")
      assert.strictEqual((yield* begin({ now: t0 + 60_002, reference: referenceClaim(scope, "order-3", t0 + 60_002) }))._tag, "Proceed")
    }))

  it.effect("4.9 merchant_reference: an in-flight claim whose holder died lapses after its lock", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      yield* begin({ now: t0, reference: referenceClaim(scope, "order-4", t0) })
      const takeover = referenceClaim(scope, "order-4", t0 + 60_000)
      assert.strictEqual((yield* begin({ now: t0 + 60_000, reference: takeover }))._tag, "Proceed")
      const after = yield* begin({ now: t0 + 60_001, reference: referenceClaim(scope, "order-4", t0 + 60_001) })
      assert.deepStrictEqual(after, { _tag: "ReferenceTaken", resourceId: takeover.resourceId, sameFingerprint: true, inFlight: true })
    }))

  it.effect("4.9 a key and a reference are reserved together; a taken reference leaves the key claimed for the caller to settle", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const holder = referenceClaim(scope, "order-5", t0)
      yield* begin({ now: t0, reference: holder })
      const key = freshKey()
      const outcome = yield* begin({ now: t0 + 1, idempotency: claim(key, t0 + 1), reference: referenceClaim(scope, "order-5", t0 + 1) })
      assert.strictEqual(outcome._tag, "ReferenceTaken")
      assert.strictEqual((yield* begin({ now: t0 + 2, idempotency: claim(key, t0 + 2) }))._tag, "KeyInFlight")
      // A replay or conflict on the key answers before the reference is looked at or claimed.
      const other = referenceClaim(scope, "order-6", t0)
      yield* commit([Write.completeIdempotency(held(key, t0 + 1), oddResponse())])
      assert.strictEqual((yield* begin({ now: t0 + 4, idempotency: claim(key, t0 + 4), reference: other }))._tag, "Replay")
      assert.strictEqual((yield* begin({ now: t0 + 5, reference: referenceClaim(scope, "order-6", t0 + 5) }))._tag, "Proceed")
    }))

  it.effect("storage: completing a key, the reference and the insert is one atomic commit", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const key = freshKey()
      const ref = referenceClaim(scope, "order-7", t0)
      assert.strictEqual((yield* begin({ now: t0, idempotency: claim(key, t0), reference: ref }))._tag, "Proceed")
      const record = intent(scope, { id: ref.resourceId, merchantReference: "order-7" })
      const response = oddResponse()
      yield* commit([
        Write.insert(PaymentIntent.table, record),
        Write.completeReference({ ...ref }),
        Write.completeIdempotency(held(key, t0), response)
      ])
      assert.deepStrictEqual(yield* begin({ now: t0 + 1, idempotency: claim(key, t0 + 1) }), { _tag: "Replay", response })
      const taken = yield* begin({ now: t0 + 1, reference: referenceClaim(scope, "order-7", t0 + 1) })
      assert.deepStrictEqual(taken, { _tag: "ReferenceTaken", resourceId: record.id, sameFingerprint: true, inFlight: false })
    }))

  it.effect("4.9 merchant_reference 2: a create that outlived its claim and the create that took it over leave the reference naming the one intent", () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const slow = referenceClaim(scope, "order-8", t0)
      assert.strictEqual((yield* begin({ now: t0, reference: slow }))._tag, "Proceed")
      // The first create stalls past its lock; a retry with another key takes the reference over.
      const takeover = referenceClaim(scope, "order-8", t0 + 60_000)
      assert.strictEqual((yield* begin({ now: t0 + 60_000, reference: takeover }))._tag, "Proceed")
      // Both finish, the stalled one first; each that the store refuses gives its own claim back, as a create does.
      const finish = (c: Storage.ReferenceClaim) =>
        Effect.gen(function*() {
          const done = yield* Effect.either(commit([
            Write.insert(PaymentIntent.table, intent(scope, { id: c.resourceId, merchantReference: "order-8" })),
            Write.completeReference({ ...c })
          ]))
          if (done._tag === "Left") yield* commit([Write.releaseReference({ ...c })])
          return done._tag === "Right"
        })
      const created = [(yield* finish(slow)) ? slow.resourceId : undefined, (yield* finish(takeover)) ? takeover.resourceId : undefined]
        .filter((id): id is string => id !== undefined)
      assert.strictEqual(created.length, 1)
      // Rule 2: the same create again answers with the intent that exists, now and forever.
      const again = yield* begin({ now: t0 + 60_002, reference: referenceClaim(scope, "order-8", t0 + 60_002) })
      assert.deepStrictEqual(again, { _tag: "ReferenceTaken", resourceId: created[0]!, sameFingerprint: true, inFlight: false })
    }))

  it.effect(`4.9 merchant_reference: ${concurrency} concurrent creates with one reference and different keys: exactly one proceeds`, () =>
    Effect.gen(function*() {
      const scope = freshScope()
      const outcomes = yield* Effect.all(
        Array.from({ length: concurrency }, () => begin({ now: t0, idempotency: claim(freshKey(), t0), reference: referenceClaim(scope, "order-race", t0) })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(count(outcomes, "Proceed"), 1, tags(outcomes).join(","))
      const winner = outcomes.findIndex((o) => o._tag === "Proceed")
      assert.isTrue(outcomes.every((o, i) => i === winner || (o._tag === "ReferenceTaken" && o.inFlight)))
    }))
}
