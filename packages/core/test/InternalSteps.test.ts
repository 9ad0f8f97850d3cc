/**
 * The named steps of the in-memory store (`storage/internal/memoryStorage.ts`) and of
 * `Operation.run` (`requests/internal/operationSteps.ts`), each reached on its own (issue 49): the
 * whole paths are the contract suite's and the operations' tests.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type { Authentication } from "../src/index.js"
import { ApiResponse, Errors, Idempotency, Merchants, Storage } from "../src/index.js"
import * as Steps from "../src/requests/internal/operationSteps.js"
import * as Unreleased from "../src/requests/internal/unreleased.js"
import * as Memory from "../src/storage/internal/memoryStorage.js"

const t0 = Date.UTC(2026, 0, 1)

const apiKey = (id: string, publicKey: string): typeof Merchants.apiKeyTable.record.Type => ({
  id,
  merchantId: "mch_steps",
  environment: "test",
  publicKey,
  secretHash: Merchants.hashSecret("sk_test_steps"),
  revokedAt: null,
  seeded: false,
  createdAt: t0,
  version: 1
})

describe("memory store steps", () => {
  it("issue 49 check: an insert after a Delete takes the public key the delete frees, one before it does not; check writes nothing", () => {
    const store = Memory.emptyStore()
    const old = apiKey("key_old", "pk_test_moved")
    assert.isUndefined(Memory.commit(store, [Storage.Write.insert(Merchants.apiKeyTable, old)]))
    const moved = apiKey("key_new", "pk_test_moved")
    const after = [Storage.Write.delete(Merchants.apiKeyTable, old), Storage.Write.insert(Merchants.apiKeyTable, moved)]
    assert.isUndefined(Memory.check(store, after))
    assert.strictEqual(Memory.check(store, [...after].reverse())?._tag, "UniqueViolation")
    assert.strictEqual(Memory.rowsOf(store, Merchants.apiKeyTable).findBy("publicKey", "pk_test_moved")?.id, "key_old", "check applied nothing")
    assert.isUndefined(Memory.commit(store, after))
    assert.strictEqual(Memory.rowsOf(store, Merchants.apiKeyTable).findBy("publicKey", "pk_test_moved")?.id, "key_new")
  })
})

describe("Operation.run steps", () => {
  const principal = { apiKeyId: "key_steps", environment: "test", merchant: { id: "mch_steps" } } as unknown as Authentication.Principal
  const options = (decide: Steps.Options<never>["decide"]): Steps.Options<never> => ({
    context: { principal, requestId: "req_steps", idempotencyKey: "k-1" },
    route: "POST /steps",
    canonical: { a: 1 },
    resource: "step",
    decide
  })

  it("4.9.3 runOf: the key is held under the API key id, locked for Idempotency.lockMillis; no reference, none held", () => {
    const run = Steps.runOf(Memory.make(), options(Effect.die("unused")), t0)
    assert.deepStrictEqual(run.held, { apiKeyId: "key_steps", key: "k-1", lockedUntil: t0 + Idempotency.lockMillis })
    assert.isUndefined(run.heldReference)
  })

  it("4.9.6 answerOfBegin: a key in flight is a 409 to retry later, a replay the stored answer; Proceed goes on", () => {
    const inFlight = Steps.answerOfBegin("req_steps", { _tag: "KeyInFlight" })
    assert.strictEqual(inFlight?.status, 409)
    assert.strictEqual(inFlight?.retryAfterSeconds, ApiResponse.inFlightRetryAfterSeconds)
    const stored = { status: 201, body: "{}", requestId: "req_first" }
    assert.deepStrictEqual(Steps.answerOfBegin("req_steps", { _tag: "Replay", response: stored }), ApiResponse.replay(stored))
    assert.isUndefined(Steps.answerOfBegin("req_steps", { _tag: "Proceed" }))
  })

  it.effect("D5 decided: a 404 refusal releases the key (the same request begins afresh), a 409 is stored and replayed", () =>
    Effect.gen(function*() {
      const storage = Memory.make()
      const notFound = Steps.runOf(storage, options(Effect.fail(new Errors.ResourceNotFound({ message: "no such step" }))), t0)
      assert.deepStrictEqual(yield* Steps.begin(notFound), Either.right({ _tag: "Proceed" }))
      assert.strictEqual((yield* Steps.decided(notFound)).status, 404)
      assert.deepStrictEqual(yield* Steps.begin(notFound), Either.right({ _tag: "Proceed" }), "released")
      const conflict = options(Effect.fail(new Errors.PaymentIntentUnexpectedState({ message: "not now" })))
      const refused = Steps.runOf(storage, { ...conflict, context: { ...conflict.context, idempotencyKey: "k-2" } }, t0)
      assert.deepStrictEqual(yield* Steps.begin(refused), Either.right({ _tag: "Proceed" }))
      const answer = yield* Steps.decided(refused)
      const again = yield* Steps.begin(refused)
      assert.isTrue(Either.isRight(again) && again.right._tag === "Replay", "stored")
      assert.deepStrictEqual(Option.some(answer.status), Either.getRight(again).pipe(Option.map((b) => b._tag === "Replay" ? b.response.status : 0)))
    }))
})

describe("releases owed (requests/internal/unreleased.ts)", () => {
  it("4.9.7 every release still owed for a key is kept: the release of a retry whose begin wrote nothing landing does not forget the first request's, which frees the claim", () => {
    // The failover's sequence: a create claims the key and fails with the store down for its
    // release (owed 1); a retry's begin fails too and gives back its own, never written, claim
    // (owed 2); that one lands first. A later retry finding the key in flight must still find 1.
    // Owed releases are kept per store object: any one stands for it here.
    const store = {} as Storage.Storage["Type"]
    const key = (lockedUntil: number) => ({ apiKeyId: "key_owed", key: "idem-owed", lockedUntil })
    const first = Unreleased.remember(store, [Storage.Write.releaseIdempotency(key(t0 + 60_000))])
    const second = Unreleased.remember(store, [Storage.Write.releaseIdempotency(key(t0 + 61_000))])
    Unreleased.forget(store, second)
    assert.deepStrictEqual(Unreleased.owed(store, key(t0 + 62_000), undefined), [first])
    Unreleased.forget(store, first)
    assert.deepStrictEqual(Unreleased.owed(store, key(t0 + 62_000), undefined), [])
  })
})
