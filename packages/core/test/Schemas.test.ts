import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Schemas } from "../src/index.js"

describe("Schemas", () => {
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
})
