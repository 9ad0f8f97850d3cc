/**
 * The order of ids (`Table.compareIds`): by code point, which is the order of their UTF-8 bytes,
 * as PostgreSQL (`COLLATE "C"` on a UTF-8 database) and MongoDB (binary string order) sort them, so
 * a walk or a list pages alike in every store (issue 49).
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Table } from "../src/index.js"

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))

describe("Table.compareIds", () => {
  it("issue 49 a character past U+FFFF sorts after U+E000–U+FFFF, where JavaScript's < puts its surrogate before them", () => {
    const ids = ["\u{1f600}", "\ufffd", "z", "\u00e9", "\ue000", "\ud7ff", "\u{10000}", ""]
    assert.deepStrictEqual([...ids].sort(Table.compareIds), ["", "z", "\u00e9", "\ud7ff", "\ue000", "\ufffd", "\u{10000}", "\u{1f600}"])
    assert.isTrue("\u{1f600}" < "\ufffd", "JavaScript's order differs")
  })

  it("issue 49 the sign of compareIds is the sign of a comparison of the UTF-8 bytes, for any strings", () => {
    const unicode = fc.string({ unit: fc.constantFrom("a", "z", "\u00e9", "\ud7ff", "\ue000", "\ufffd", "\u{10000}", "\u{1f600}"), maxLength: 6 })
    fc.assert(fc.property(unicode, unicode, (a, b) => Math.sign(Table.compareIds(a, b)) === Math.sign(byBytes(a, b))))
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => Math.sign(Table.compareIds(a, b)) === Math.sign(byBytes(a, b)))
    )
  })

  it("D6 compareNewestFirst: newest first, ties by id in the same order, descending", () => {
    const rows = [{ createdAt: 1, id: "\u{1f600}" }, { createdAt: 1, id: "\ufffd" }, { createdAt: 2, id: "a" }]
    assert.deepStrictEqual([...rows].sort(Table.compareNewestFirst).map((r) => r.id), ["a", "\u{1f600}", "\ufffd"])
  })
})
