/** D10 over HTTP, black box: read and list refunds, and their events (D6, D7, 4.3). */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@tender/core"
import { keys } from "../../core/test/fixtures.js"
import { fields, world } from "./d10World.js"
import { assertError } from "./harness.js"

describe("D10 reading refunds over HTTP", () => {
  it("D10 GET /refunds/{id}: 404 across merchants and environments, 400 for a malformed id", async () => {
    const w = await world()
    const pi = await w.paid()
    const r = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const got = await w.req("GET", `/refunds/${r.id}`)
    assert.strictEqual(got.status, 200)
    assert.deepStrictEqual(got.json, r)
    assertError(await w.req("GET", `/refunds/${r.id}`, { key: keys.otherTest }), 404, "resource_not_found")
    assertError(await w.req("GET", `/refunds/${r.id}`, { key: keys.demoLive }), 404, "resource_not_found")
    assertError(await w.req("GET", "/refunds/rfnd_000000000000000000000000"), 404, "resource_not_found")
    assertError(await w.req("GET", "/refunds/rfnd_x"), 400, "validation_failed", "id")
  })

  it("D10 D6 GET /refunds: envelope, newest first, limit bounds, bad cursor -> 400 cursor, filters", async () => {
    const w = await world()
    const a = await w.paid()
    const b = await w.paid()
    const r1 = (await w.refund({ payment_intent: a.id, amount: "100" })).json
    const r2 = (await w.refund({ payment_intent: a.id, amount: Simulator.magicAmounts.refundFails })).json
    const r3 = (await w.refund({ payment_intent: b.id, amount: "300", merchant_reference: "ref-3" })).json
    await w.work()
    const all = await w.req("GET", "/refunds")
    assert.strictEqual(all.status, 200, all.text)
    assert.sameMembers(Object.keys(all.json), ["data", "has_more", "next_cursor"])
    assert.isNull(all.json.next_cursor)
    assert.deepStrictEqual(all.json.data.map((r: { id: string }) => r.id), [r3.id, r2.id, r1.id])
    assert.isFalse(all.json.has_more)
    const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((r) => r.id)
    assert.deepStrictEqual(ids(await w.req("GET", `/refunds?payment_intent=${a.id}`)), [r2.id, r1.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=failed")), [r2.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?status=failed,succeeded")), [r3.id, r2.id, r1.id])
    assert.deepStrictEqual(ids(await w.req("GET", "/refunds?merchant_reference=ref-3")), [r3.id])
    assertError(await w.req("GET", "/refunds?status=canceled"), 400, "validation_failed", "status")
    assertError(await w.req("GET", "/refunds?limit=0"), 400, "validation_failed", "limit")
    assertError(await w.req("GET", "/refunds?limit=101"), 400, "validation_failed", "limit")
    assertError(await w.req("GET", "/refunds?cursor=garbage"), 400, "validation_failed", "cursor")
    assertError(await w.req("GET", "/refunds?amount=100"), 400, "validation_failed", "amount")
    assertError(await w.req("GET", "/refunds?payment_intent=dord_x"), 400, "validation_failed", "payment_intent")
    // Pages: limit 1, then the cursor.
    const page1 = await w.req("GET", "/refunds?limit=1")
    assert.isTrue(page1.json.has_more)
    assert.deepStrictEqual(ids(page1), [r3.id])
    const cursor = page1.json.next_cursor
    assert.isString(cursor, page1.text)
    const page2 = await w.req("GET", `/refunds?limit=1&cursor=${encodeURIComponent(cursor)}`)
    assert.deepStrictEqual(ids(page2), [r2.id])
    // A cursor never widens what the caller sees: another merchant's filter set or a wider one.
    const other = await w.req("GET", `/refunds?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: keys.otherTest })
    assert.include([200, 400], other.status)
    if (other.status === 200) assert.lengthOf(other.json.data, 0)
    const filtered = await w.req("GET", `/refunds?payment_intent=${b.id}&limit=1`)
    assert.deepStrictEqual(ids(filtered), [r3.id])
    assert.isFalse(filtered.json.has_more)
    const reused = await w.req("GET", `/refunds?status=succeeded&limit=5&cursor=${encodeURIComponent(cursor)}`)
    if (reused.status === 200) { for (const r of reused.json.data) assert.strictEqual(r.status, "succeeded") }
    else assertError(reused, 400, "validation_failed", "cursor")
  })

  it("D10 4.3 created_after is inclusive and created_before exclusive; an offset is required", async () => {
    const w = await world()
    const pi = await w.paid()
    const r = (await w.refund({ payment_intent: pi.id, amount: "100" })).json
    const ids = async (q: string) => {
      const res = await w.req("GET", `/refunds?${q}`)
      assert.strictEqual(res.status, 200, res.text)
      return res.json.data.map((x: { id: string }) => x.id)
    }
    const at = encodeURIComponent(r.created_at)
    assert.deepStrictEqual(await ids(`created_after=${at}`), [r.id])
    assert.deepStrictEqual(await ids(`created_before=${at}`), [])
    const later = encodeURIComponent(new Date(Date.parse(r.created_at) + 1).toISOString())
    assert.deepStrictEqual(await ids(`created_before=${later}`), [r.id])
    assert.deepStrictEqual(await ids(`created_after=${later}`), [])
    assertError(await w.req("GET", "/refunds?created_after=2026-01-01T00:00:00"), 400, "validation_failed", "created_after")
    assertError(await w.req("GET", "/refunds?created_before=yesterday"), 400, "validation_failed", "created_before")
  })
})

describe("D10 refund events over HTTP", () => {
  it("D10 D7 a refund emits refund.created, then refund.succeeded or refund.failed, with the refund as data.object", async () => {
    const w = await world()
    const { ok, ko } = await w.settledRefunds()
    const okEvents = await w.events(ok.id)
    assert.deepStrictEqual(okEvents.map((e) => e.type), ["refund.created", "refund.succeeded"])
    assert.deepStrictEqual(okEvents[1]!.data.object, (await w.req("GET", `/refunds/${ok.id}`)).json)
    assert.strictEqual((okEvents[0]!.data.object as { status: string }).status, "pending")
    const koEvents = await w.events(ko.id)
    assert.deepStrictEqual(koEvents.map((e) => e.type), ["refund.created", "refund.failed"])
    assert.strictEqual((koEvents[1]!.data.object as { failure_code: string }).failure_code, "refund_failed")
  })

  it("D10 D7 refund.created, refund.succeeded and refund.failed are in the catalogue with a refund as data.object", async () => {
    const w = await world()
    const catalogue = await w.req("GET", "/webhook_event_types")
    for (const type of ["refund.created", "refund.succeeded", "refund.failed"]) {
      const entry = catalogue.json.data.find((d: { type: string }) => d.type === type)
      assert.isDefined(entry, type)
      assert.strictEqual(entry.example.data.object.object, "refund")
      assert.sameMembers(Object.keys(entry.example.data.object), fields)
      assert.match(entry.example.data.object.id, /^rfnd_[0-9A-Za-z]{24}$/)
    }
  })
})
