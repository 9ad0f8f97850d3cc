import { assert, describe, it } from "@effect/vitest"
import { eventLoopTurn } from "@tender/repo-test-support"
import { Schema } from "effect"
import fc from "fast-check"
import { Schemas } from "../src/index.js"

describe("Schemas", () => {
  it("D4 merchant_reference is 1 to 256 characters counted as Unicode code points: 256 emoji pass, 257 do not", () => {
    const valid = (s: string) => Schema.is(Schemas.MerchantReference)(s)
    const emoji = "\u{1F600}"
    assert.isTrue(valid(emoji.repeat(256)))
    assert.isFalse(valid(emoji.repeat(257)))
    assert.isTrue(valid("a".repeat(256)))
    assert.isFalse(valid("a".repeat(257)))
    assert.isFalse(valid(""))
  })

  it("D4 characterCount counts code points (a surrogate pair is one character), as JSON Schema's maxLength does", async () => {
    await fc.assert(fc.asyncProperty(fc.string({ unit: "grapheme-composite" }), fc.string({ unit: "binary" }), async (a, b) => {
      await eventLoopTurn()
      const s = a + b
      // Well-formed strings only: StorableText refuses lone surrogates before any length is counted.
      if (!Schemas.isStorableText(s)) return
      assert.strictEqual(Schemas.characterCount(s), [...s].length)
    }))
  })

  const dateTime = Schema.decodeUnknownEither(Schemas.DateTimeWithOffset)

  it("4.3 created_after / created_before: an ISO 8601 date-time with an offset", () => {
    for (const s of ["2026-11-22T08:15:30Z", "2026-11-22T08:15:30.123Z", "2026-11-22T15:15:30+07:00", "2026-11-22T08:15Z", "2024-02-29T00:00:00Z"]) {
      assert.isTrue(dateTime(s)._tag === "Right", s)
    }
    for (const s of ["2026-11-22T08:15:30", "2026-11-22", "yesterday", "2026-13-01T00:00:00Z", "2026-11-22T25:00:00Z", ""]) {
      assert.isTrue(dateTime(s)._tag === "Left", s)
    }
  })

  it("4.3 created_after / created_before: a calendar date that does not exist is rejected, not rolled over", () => {
    // Date.parse reads 2026-02-30 as 2026-03-02: a filter on it would silently move.
    for (const s of ["2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2025-02-29T00:00:00Z", "2026-02-31T10:00+07:00"]) {
      assert.isTrue(dateTime(s)._tag === "Left", s)
    }
  })

  it("2.1 currency ^[A-Z]{3,6}$, country ^[A-Z]{2}$, amount ^[1-9]\\d*$ of at most 18 digits (D4)", () => {
    const ok = (s: Schema.Schema<string>, v: unknown) => Schema.decodeUnknownEither(s)(v)._tag === "Right"
    for (const c of ["THB", "USDT", "ABCDEF"]) assert.isTrue(ok(Schemas.Currency, c), c)
    for (const c of ["TH", "ABCDEFG", "thb", "TH1"]) assert.isFalse(ok(Schemas.Currency, c), c)
    for (const c of ["TH", "VN"]) assert.isTrue(ok(Schemas.Country, c), c)
    for (const c of ["T", "THA", "th"]) assert.isFalse(ok(Schemas.Country, c), c)
    assert.isTrue(ok(Schemas.Amount, "9".repeat(18)))
    for (const a of ["0", "01", "1".repeat(19), " 1", "1 "]) assert.isFalse(ok(Schemas.Amount, a), a)
  })

  it("D4 times on the wire are ISO 8601 UTC with milliseconds and Z", () => {
    assert.strictEqual(Schemas.formatTimestamp(0), "1970-01-01T00:00:00.000Z")
    assert.match(Schemas.formatTimestamp(1_795_000_000_123), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it("D4 formatTimestamp writes exactly what Date's toISOString writes, for every millisecond", async () => {
    const same = (millis: number) => assert.strictEqual(Schemas.formatTimestamp(millis), new Date(millis).toISOString(), String(millis))
    // The edges: the epoch, leap days, century and 400-year years, the last four-digit year, and past it.
    for (
      const at of [
        "1970-01-01T00:00:00.000Z",
        "1972-02-29T23:59:59.999Z",
        "1999-12-31T23:59:59.999Z",
        "2000-02-29T12:00:00.000Z",
        "2100-02-28T23:59:59.999Z",
        "2100-03-01T00:00:00.000Z",
        "2400-02-29T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z"
      ]
    ) same(Date.parse(at))
    for (const millis of [-1, -86_400_001, 253_402_300_800_000, 8.64e15, 1.5, 1_795_000_000_123.25]) same(millis)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 253_402_300_799_999 }), async (millis) => {
        await eventLoopTurn()
        same(millis)
      }),
      { numRuns: 20_000 }
    )
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -8.64e15, max: 8.64e15 }), async (millis) => {
        await eventLoopTurn()
        same(millis)
      }),
      { numRuns: 2_000 }
    )
  })
})
