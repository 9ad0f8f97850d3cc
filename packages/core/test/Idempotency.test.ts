import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Canonical, Idempotency, Pagination } from "../src/index.js"

describe("Idempotency (4.9, D5)", () => {
  it.effect("D5 Idempotency-Key: empty, over 255 characters or outside printable ASCII -> 400 param Idempotency-Key", () =>
    Effect.gen(function*() {
      for (const raw of ["", "x".repeat(256), "caf\u00e9", "tab\there", "new\nline", "\u007f"]) {
        const e = yield* Effect.flip(Idempotency.validateKey(raw))
        assert.strictEqual(e._tag, "ValidationFailed", JSON.stringify(raw))
        assert.strictEqual(e.param, "Idempotency-Key")
      }
      for (const raw of ["a", "x".repeat(255), " !~", "8a6f0c1e-3b1d-4c8e-9f6a-2d7b5e4c1a90"]) {
        assert.strictEqual(yield* Idempotency.validateKey(raw), raw)
      }
    }))

  it.effect("4.9.1 optional unless the route requires it; missing where required -> 400 param Idempotency-Key (D5)", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* Idempotency.validateKey(undefined))
      const e = yield* Effect.flip(Idempotency.validateKey(undefined, true))
      assert.strictEqual(e.param, "Idempotency-Key")
    }))

  it("D5 the fingerprint is SHA-256 over a canonical form: keys sorted at every depth, absent values dropped, the route included", () => {
    const a = Idempotency.requestFingerprint("POST /payment_intents", { b: 1, a: { d: [1, { y: 1, x: 2 }], c: 2 }, e: undefined })
    const b = Idempotency.requestFingerprint("POST /payment_intents", { a: { c: 2, d: [1, { x: 2, y: 1 }] }, b: 1 })
    assert.strictEqual(a, b)
    assert.match(a, /^[0-9a-f]{64}$/)
    assert.strictEqual(a, Canonical.sha256(Canonical.stringify({ route: "POST /payment_intents", body: { a: { c: 2, d: [1, { x: 2, y: 1 }] }, b: 1 } })))
    assert.notStrictEqual(a, Idempotency.requestFingerprint("POST /topup_intents", { a: { c: 2, d: [1, { x: 2, y: 1 }] }, b: 1 }))
    // Array order is meaningful.
    assert.notStrictEqual(a, Idempotency.requestFingerprint("POST /payment_intents", { a: { c: 2, d: [{ x: 2, y: 1 }, 1] }, b: 1 }))
  })

  it("4.9.4 keys are kept 24 hours after the first request", () => {
    assert.strictEqual(Idempotency.retentionMillis, 24 * 60 * 60 * 1000)
  })
})

describe("Pagination (D6)", () => {
  it.effect("D6 next_cursor is opaque base64url carrying position only, and decodes back to it", () =>
    Effect.gen(function*() {
      const position = { createdAt: 1_795_000_000_123, id: "dord_000000000000000000000001" }
      const cursor = Pagination.encode(position)
      assert.match(cursor, /^[A-Za-z0-9_-]+$/)
      assert.notInclude(cursor, "dord_")
      assert.deepStrictEqual(yield* Pagination.decode(cursor, "dord_"), position)
    }))

  it.effect("D6 a cursor that does not decode -> 400 validation_failed param cursor", () =>
    Effect.gen(function*() {
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url")
      for (
        const cursor of [
          "",
          "!!",
          "a b",
          b64({ createdAt: 1, id: "dord_x" }),
          b64([-1, "dord_x"]),
          b64([1.5, "dord_x"]),
          b64([1, "tuin_x"]),
          b64([1, 2]),
          b64([1, "dord_x", 3])
        ]
      ) {
        const e = yield* Effect.flip(Pagination.decode(cursor, "dord_"))
        assert.strictEqual(e.code, "validation_failed", cursor)
        assert.strictEqual(e.param, "cursor", cursor)
      }
    }))
})
