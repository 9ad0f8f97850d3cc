/**
 * D5 fingerprints are SHA-256 of canonical JSON, stored with every idempotency key and
 * `merchant_reference` claim and compared with the next request's: the canonical text must never
 * change between versions. `stringify` writes it directly; this holds it equal, byte
 * for byte, to the form it replaced, `JSON.stringify` of a copy with every object's keys sorted.
 */
import { assert, describe, it } from "@effect/vitest"
import { eventLoopTurn } from "@tender/repo-test-support"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { Canonical } from "../src/index.js"

/** The canonical text as it was first written (0.1.0): the reference every version must equal. */
const reference = (value: unknown): string => JSON.stringify(sortDeep(value))
const sortDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortDeep)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().flatMap((key) => {
        const v = (value as Record<string, unknown>)[key]
        return v === undefined ? [] : [[key, sortDeep(v)]]
      })
    )
  }
  return value
}

describe("Canonical", () => {
  it("D5 the canonical text of any JSON value, and of request bodies with odd keys, is byte for byte the reference's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        await eventLoopTurn()
        assert.strictEqual(Canonical.stringify(value), reference(value))
      }),
      { numRuns: 2000 }
    )
    await fc.assert(
      fc.asyncProperty(
        fc.anything({
          withNullPrototype: true,
          withBoxedValues: true,
          withSparseArray: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true
        }),
        async (value) => {
          await eventLoopTurn()
          assert.strictEqual(Canonical.stringify(value), reference(value))
        }
      ),
      { numRuns: 2000 }
    )
    // Keys near what JavaScript orders first (array indices, 0 to 2^32 - 2) and just beside them.
    const key = fc.oneof(fc.constantFrom("0", "1", "01", "10", "2", "9", "4294967294", "4294967295", "-1", "1.0", "1e3", " 1", "__proto__", ""), fc.string())
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 12 }), async (value) => {
        await eventLoopTurn()
        assert.strictEqual(Canonical.stringify(value), reference(value))
      }),
      { numRuns: 2000 }
    )
  })

  it("D5 keys sorted at every depth, undefined members dropped, __proto__ kept as a member", () => {
    const body = JSON.parse(`{"b":1,"a":{"z":[3,{"y":null,"x":"é"}],"__proto__":{"k":1}},"c":"\\u2028"}`)
    const text = Canonical.stringify({ ...body, d: undefined, e: [undefined, () => 1] })
    assert.strictEqual(text, `{"a":{"__proto__":{"k":1},"z":[3,{"x":"é","y":null}]},"b":1,"c":"\u2028","e":[null,null]}`)
    assert.strictEqual(text, reference({ ...body, d: undefined, e: [undefined, () => 1] }))
    assert.strictEqual(Canonical.fingerprint({ b: 1, a: 2 }), Canonical.fingerprint({ a: 2, b: 1 }))
  })

  it("D5 the SHA-256 of any text or bytes is the hex digest node:crypto's createHash gives (the stored fingerprints' and secret hashes' form)", async () => {
    const digest = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex")
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.uint8Array()), async (data) => {
        await eventLoopTurn()
        assert.strictEqual(Canonical.sha256(data), digest(data))
      }),
      { numRuns: 2000 }
    )
    assert.strictEqual(Canonical.sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  })
})
