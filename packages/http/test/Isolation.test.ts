/**
 * Tenant isolation (4.2, 5.3, 5.4) through the real fetch handler: every route, read and
 * write, called by another merchant, by the same merchant's other environment, and with a
 * revoked key, against one owner's intents and asset. Another tenant's resource answers
 * exactly as an id nobody has; lists never show it; keys (Idempotency-Key,
 * merchant_reference) never reach across; a revoked key is 401 everywhere; and the owner's
 * data is unchanged afterwards.
 */
import { assert, describe, it } from "@effect/vitest"
import { bankTransfer as bankTransferBody, promptpayNamed } from "@tender/repo-test-support"
import { keys } from "../../core/test/fixtures.js"
import type { Key, Reply } from "./harness.js"
import { app, assertError, call, formWith, png } from "./harness.js"

type Handler = (r: Request) => Promise<Response>

const promptpay = promptpayNamed
const bankTransfer = bankTransferBody()
/** What every caller can create in its own environment (live has no merchant-mode route). */
const hosted = { amount: "990", currency: "THB", country: "TH", checkout_mode: "hosted", customer: { email: "a@example.com" } }

const callers: ReadonlyArray<{ readonly name: string; readonly key: Key; readonly environment: string }> = [
  { name: "another merchant", key: keys.otherTest, environment: "test" },
  { name: "another environment", key: keys.demoLive, environment: "live" }
]

const unknownIntent = "dord_" + "Z".repeat(24)
const unknownAsset = "asst_" + "Z".repeat(24)

/** The error body without its request id, with `unknown` written as `id`: what must be equal. */
const comparable = (res: Reply, unknown?: string, id?: string) => {
  const text = unknown !== undefined && id !== undefined ? res.text.replaceAll(unknown, id) : res.text
  const { request_id: _, ...rest } = JSON.parse(text).error
  return { status: res.status, ...rest }
}

/** The owner's resources: intents in each state a route acts on, an asset, and the keys it used. */
const ownerWorld = async (h: Handler) => {
  const owner = keys.demoTest
  const pending = await call(h, "POST", "/payment_intents", {
    key: owner,
    body: { ...promptpay, merchant_reference: "iso-ref" },
    headers: { "idempotency-key": "iso-create" }
  })
  assert.strictEqual(pending.status, 201, pending.text)
  const transfer = await call(h, "POST", "/payment_intents", { key: owner, body: bankTransfer })
  assert.strictEqual(transfer.status, 201, transfer.text)
  // An owner's key the callers' confirms and receipts reuse (the create and upload keys are reused by their creates and uploads).
  const third = await call(h, "POST", "/payment_intents", { key: owner, body: promptpay, headers: { "idempotency-key": "iso-owner" } })
  assert.strictEqual(third.status, 201, third.text)
  const asset = await call(h, "POST", "/assets", { key: owner, form: formWith(png()), headers: { "idempotency-key": "iso-upload" } })
  assert.strictEqual(asset.status, 201, asset.text)
  const snapshot = async () => ({
    pending: (await call(h, "GET", `/payment_intents/${pending.json.id}`, { key: owner })).json,
    transfer: (await call(h, "GET", `/payment_intents/${transfer.json.id}`, { key: owner })).json,
    list: (await call(h, "GET", "/payment_intents?limit=100", { key: owner })).json.data.map((d: { id: string }) => d.id)
  })
  return { owner, pending: pending.json, transfer: transfer.json, asset: asset.json, before: await snapshot(), snapshot }
}

describe("tenant isolation matrix (4.2, 5.3, 5.4)", () => {
  for (const caller of callers) {
    it(`4.2 read, ${caller.name}: a get of the owner's intent answers exactly as an unknown id; lists (any filter) and discovery never show the owner's data`, async () => {
      const h = app()
      const world = await ownerWorld(h)
      const as = { key: caller.key }

      // GET /payment_intents/{id}
      for (const intent of [world.pending, world.transfer]) {
        const theirs = await call(h, "GET", `/payment_intents/${intent.id}`, as)
        assertError(theirs, 404, "resource_not_found", "id")
        const none = await call(h, "GET", `/payment_intents/${unknownIntent}`, as)
        assert.deepStrictEqual(comparable(theirs), comparable(none, unknownIntent, intent.id))
      }

      // GET /payment_intents: with no filter, and with filters naming the owner's data.
      for (const q of ["", "?limit=100", "?merchant_reference=iso-ref", "?status=requires_action", "?country=TH&currency=THB"]) {
        const listed = await call(h, "GET", `/payment_intents${q}`, as)
        assert.strictEqual(listed.status, 200, listed.text)
        const ids = listed.json.data.map((d: { id: string }) => d.id)
        assert.notInclude(ids, world.pending.id, q)
        assert.notInclude(ids, world.transfer.id, q)
        for (const d of listed.json.data) assert.strictEqual(d.environment, caller.environment)
      }

      // GET /payment_methods/options: the caller's own environment and configuration.
      const options = await call(h, "GET", "/payment_methods/options?amount=150000&country=TH&currency=THB", as)
      assert.strictEqual(options.status, 200, options.text)
      assert.strictEqual(options.json.environment, caller.environment)
      if (caller.environment === "live") assert.deepStrictEqual(options.json.methods, [])

      assert.deepStrictEqual(await world.snapshot(), world.before)
    })

    it(`4.2 write, ${caller.name}: a confirm or receipt of the owner's intent or asset answers exactly as an unknown id; creates and uploads under the owner's keys are the caller's own; the owner's data is unchanged`, async () => {
      const h = app()
      const world = await ownerWorld(h)
      const as = { key: caller.key }

      // First, under the owner's keys (the caller's own key of the same name is still free):
      // POST /payment_intents: the owner's Idempotency-Key and merchant_reference make a new intent of the caller's.
      const created = await call(h, "POST", "/payment_intents", {
        ...as,
        body: { ...hosted, merchant_reference: "iso-ref" },
        headers: { "idempotency-key": "iso-create" }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.isNull(created.headers.get("idempotent-replayed"))
      assert.notStrictEqual(created.json.id, world.pending.id)
      assert.strictEqual(created.json.environment, caller.environment)
      assert.strictEqual(created.json.merchant_reference, "iso-ref")

      // POST /assets: the owner's upload key makes a new asset of the caller's, which the owner cannot use.
      const uploaded = await call(h, "POST", "/assets", { ...as, form: formWith(png(65)), headers: { "idempotency-key": "iso-upload" } })
      assert.strictEqual(uploaded.status, 201, uploaded.text)
      assert.isNull(uploaded.headers.get("idempotent-replayed"))
      assert.notStrictEqual(uploaded.json.id, world.asset.id)
      const ownerUses = await call(h, "POST", `/payment_intents/${world.transfer.id}/receipt`, { key: world.owner, body: { asset_id: uploaded.json.id } })
      const ownerUnknown = await call(h, "POST", `/payment_intents/${world.transfer.id}/receipt`, { key: world.owner, body: { asset_id: unknownAsset } })
      assertError(ownerUses, 404, "resource_not_found", "asset_id")
      assert.deepStrictEqual(comparable(ownerUses), comparable(ownerUnknown, unknownAsset, uploaded.json.id))

      // POST /payment_intents/{id}/confirm, with and without the owner's Idempotency-Key.
      // (Each comparison under a key of its own: a confirm's 404 is kept on its key, see docs/idempotency.md.)
      for (const [headers, other] of [[{}, {}], [{ "idempotency-key": "iso-owner" }, { "idempotency-key": "iso-owner-unknown" }]] as const) {
        const theirs = await call(h, "POST", `/payment_intents/${world.pending.id}/confirm`, { ...as, headers })
        assertError(theirs, 404, "resource_not_found", "id")
        const none = await call(h, "POST", `/payment_intents/${unknownIntent}/confirm`, { ...as, headers: other })
        assert.deepStrictEqual(comparable(theirs), comparable(none, unknownIntent, world.pending.id))
      }

      // POST /payment_intents/{id}/receipt by asset id: the owner's intent with the owner's asset, and with an unknown asset.
      for (const assetId of [world.asset.id, unknownAsset]) {
        const theirs = await call(h, "POST", `/payment_intents/${world.transfer.id}/receipt`, { ...as, body: { asset_id: assetId } })
        assertError(theirs, 404, "resource_not_found")
        const none = await call(h, "POST", `/payment_intents/${unknownIntent}/receipt`, { ...as, body: { asset_id: assetId } })
        assert.deepStrictEqual(comparable(theirs), comparable(none, unknownIntent, world.transfer.id))
      }
      // ... and as a file.
      const file = await call(h, "POST", `/payment_intents/${world.transfer.id}/receipt`, {
        ...as,
        form: formWith(png()),
        headers: { "idempotency-key": "iso-owner-file" }
      })
      const fileNone = await call(h, "POST", `/payment_intents/${unknownIntent}/receipt`, {
        ...as,
        form: formWith(png()),
        headers: { "idempotency-key": "iso-upload-2" }
      })
      assertError(file, 404, "resource_not_found")
      assert.deepStrictEqual(comparable(file), comparable(fileNone, unknownIntent, world.transfer.id))

      // The caller's own intent with the owner's asset: as an unknown asset.
      const own = await call(h, "POST", "/payment_intents", { ...as, body: caller.environment === "test" ? bankTransfer : hosted })
      assert.strictEqual(own.status, 201, own.text)
      const withTheirs = await call(h, "POST", `/payment_intents/${own.json.id}/receipt`, { ...as, body: { asset_id: world.asset.id } })
      const withNone = await call(h, "POST", `/payment_intents/${own.json.id}/receipt`, { ...as, body: { asset_id: unknownAsset } })
      assert.isAtLeast(withTheirs.status, 400)
      assert.deepStrictEqual(comparable(withTheirs), comparable(withNone, unknownAsset, world.asset.id))

      // The owner's intents, list and keys are as they were: its key still replays its own create.
      assert.deepStrictEqual(await world.snapshot(), world.before)
      const replay = await call(h, "POST", "/payment_intents", {
        key: world.owner,
        body: { ...promptpay, merchant_reference: "iso-ref" },
        headers: { "idempotency-key": "iso-create" }
      })
      assert.strictEqual(replay.status, 201)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replay.json.id, world.pending.id)
    })
  }

  it("D2 a revoked key is 401 invalid_api_key on every route, read and write, and changes nothing", async () => {
    const h = app()
    const world = await ownerWorld(h)
    const as = { key: keys.revoked }
    const requests: ReadonlyArray<readonly [string, string, Parameters<typeof call>[3]]> = [
      ["POST", "/payment_intents", { ...as, body: promptpay }],
      ["POST", "/payment_intents", { ...as, body: { ...promptpay, merchant_reference: "iso-ref" }, headers: { "idempotency-key": "iso-create" } }],
      ["GET", `/payment_intents/${world.pending.id}`, as],
      ["GET", `/payment_intents/${unknownIntent}`, as],
      ["GET", "/payment_intents", as],
      ["GET", "/payment_intents?merchant_reference=iso-ref", as],
      ["POST", `/payment_intents/${world.pending.id}/confirm`, as],
      ["POST", `/payment_intents/${world.transfer.id}/receipt`, { ...as, body: { asset_id: world.asset.id } }],
      ["POST", `/payment_intents/${world.transfer.id}/receipt`, { ...as, form: formWith(png()), headers: { "idempotency-key": "iso-upload" } }],
      ["POST", "/assets", { ...as, form: formWith(png()), headers: { "idempotency-key": "iso-upload" } }],
      ["GET", "/payment_methods/options?amount=150000&country=TH&currency=THB", as]
    ]
    const bodies = new Set<string>()
    for (const [method, path, options] of requests) {
      const res = await call(h, method, path, options)
      assertError(res, 401, "invalid_api_key")
      bodies.add(JSON.stringify(comparable(res)))
    }
    // One answer, whatever was asked: nothing about the route or the resource leaks.
    assert.strictEqual(bodies.size, 1, [...bodies].join("\n"))
    assert.deepStrictEqual(await world.snapshot(), world.before)
  })
})

describe("tenant isolation matrix: top-up intents (4.2, 4.8, 5.3, 5.4)", () => {
  const unknownTopup = "tuin_" + "Z".repeat(24)
  const topup = { destination_amount: "200000", destination_currency: "THB", source: { type: "manual_receipt" } }

  const ownerTopups = async (h: Handler) => {
    const owner = keys.demoTest
    const created = await call(h, "POST", "/topup_intents", {
      key: owner,
      body: { ...topup, merchant_reference: "iso-topup", country: "TH" },
      headers: { "idempotency-key": "iso-topup-create" }
    })
    assert.strictEqual(created.status, 201, created.text)
    const asset = await call(h, "POST", "/assets", { key: owner, form: formWith(png()), headers: { "idempotency-key": "iso-topup-upload" } })
    assert.strictEqual(asset.status, 201, asset.text)
    const snapshot = async () => ({
      topup: (await call(h, "GET", `/topup_intents/${created.json.id}`, { key: owner })).json,
      list: (await call(h, "GET", "/topup_intents?limit=100", { key: owner })).json.data.map((d: { id: string }) => d.id)
    })
    return { owner, topup: created.json, asset: asset.json, before: await snapshot(), snapshot }
  }

  for (const caller of callers) {
    it(`4.2 ${caller.name}: a get or receipt of the owner's top-up answers exactly as an unknown id; lists never show it; the owner's keys make nothing of the owner's; the owner's data is unchanged`, async () => {
      const h = app()
      const world = await ownerTopups(h)
      const as = { key: caller.key }

      const theirs = await call(h, "GET", `/topup_intents/${world.topup.id}`, as)
      assertError(theirs, 404, "resource_not_found", "id")
      const none = await call(h, "GET", `/topup_intents/${unknownTopup}`, as)
      assert.deepStrictEqual(comparable(theirs), comparable(none, unknownTopup, world.topup.id))

      for (
        const q of ["", "?limit=100", "?merchant_reference=iso-topup", "?status=requires_payment", "?source_type=manual_receipt", "?country=TH&currency=THB"]
      ) {
        const listed = await call(h, "GET", `/topup_intents${q}`, as)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.notInclude(listed.json.data.map((d: { id: string }) => d.id), world.topup.id, q)
        for (const d of listed.json.data) assert.strictEqual(d.environment, caller.environment)
      }

      // A receipt naming the owner's top-up, or the owner's asset, is the same 404 as an unknown one.
      const receipt = await call(h, "POST", `/topup_intents/${world.topup.id}/receipt`, { ...as, body: { asset_id: world.asset.id } })
      assertError(receipt, 404, "resource_not_found", "id")
      const receiptNone = await call(h, "POST", `/topup_intents/${unknownTopup}/receipt`, { ...as, body: { asset_id: world.asset.id } })
      assert.deepStrictEqual(comparable(receipt), comparable(receiptNone, unknownTopup, world.topup.id))

      // The owner's Idempotency-Key and merchant_reference replay nothing of the owner's for the caller.
      const created = await call(h, "POST", "/topup_intents", {
        ...as,
        body: { ...topup, merchant_reference: "iso-topup" },
        headers: { "idempotency-key": "iso-topup-create" }
      })
      assert.isNull(created.headers.get("idempotent-replayed"))
      if (caller.environment === "test") {
        assert.strictEqual(created.status, 201, created.text)
        assert.notStrictEqual(created.json.id, world.topup.id)
        assert.strictEqual(created.json.destination.merchant_id, "mch_other")
      } else {
        // No top-up source serves live in the default set-up: refused, never the owner's.
        assertError(created, 422, "payment_configuration_unavailable", "source.type")
      }

      assert.deepStrictEqual(await world.snapshot(), world.before)
    })
  }

  it("D2 a revoked key is 401 invalid_api_key on every top-up route and changes nothing", async () => {
    const h = app()
    const world = await ownerTopups(h)
    const as = { key: keys.revoked }
    assertError(await call(h, "POST", "/topup_intents", { ...as, body: topup, headers: { "idempotency-key": "iso-topup-create" } }), 401, "invalid_api_key")
    assertError(await call(h, "GET", `/topup_intents/${world.topup.id}`, as), 401, "invalid_api_key")
    assertError(await call(h, "GET", "/topup_intents", as), 401, "invalid_api_key")
    assertError(await call(h, "POST", `/topup_intents/${world.topup.id}/receipt`, { ...as, body: { asset_id: world.asset.id } }), 401, "invalid_api_key")
    assert.deepStrictEqual(await world.snapshot(), world.before)
  })
})
