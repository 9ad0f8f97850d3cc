import { assert, describe, it } from "@effect/vitest"
import { png, promptpayFor } from "@tender/repo-test-support"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import { Asset, Event, PaymentIntent, PaymentIntentLifecycle, PaymentIntents, Provider, Receipts, Simulator, Storage, Task, Workers } from "../src/index.js"
import { expiresAtShortExpiry } from "./expiry.js"
import { asDemo, type Body, decodeParams, errorOf, events, json, type Key, keys, layer, login, refusal, work } from "./fixtures.js"

const create = (body: Body, key: Key = keys.demoTest) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(decodeParams(body))
    const r = yield* PaymentIntents.create({ principal, requestId: "req_test" }, params)
    assert.strictEqual(r.status, 201, r.body)
    return json(r) as { id: string; status: string }
  })

const confirm = (id: string, key: Key = keys.demoTest, idempotencyKey?: string) =>
  Effect.flatMap(login(key), (principal) => PaymentIntents.confirm({ principal, requestId: "req_confirm", idempotencyKey }, id))

const get = asDemo(PaymentIntents.retrieve)

const promptpay = (amount = "150000"): Body => promptpayFor(amount)

describe("payment intent lifecycle (3.1, 4.5, D7, D9)", () => {
  it.effect("D7 create writes payment_intent.created and the event of its status, each with the intent as created", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const stored = yield* Event.forResource({ merchantId: "mch_demo", environment: "test" }, intent.id)
      assert.deepStrictEqual(stored.map((e) => e.type), ["payment_intent.created", "payment_intent.requires_action"])
      const got = yield* get(intent.id)
      for (const e of stored) {
        assert.deepStrictEqual(e.data, got as unknown as Record<string, unknown>)
        const envelope = Event.toEnvelope(e)
        assert.deepStrictEqual(Object.keys(envelope), ["object", "id", "type", "environment", "created_at", "data"])
        assert.match(envelope.id, /^evt_[0-9A-Za-z]{24}$/)
        assert.strictEqual(envelope.created_at, got.updated_at)
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 confirm answers 200 with the intent as it is; the durable task moves it to succeeded, with payment_intent.succeeded", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const r = yield* confirm(intent.id)
      assert.strictEqual(r.status, 200, r.body)
      assert.strictEqual(json(r).status, "requires_action")
      assert.strictEqual(json(r).id, intent.id)
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      assert.strictEqual(yield* work, 1)
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "succeeded")
      assert.isNull(after.next_action)
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.declineOnConfirm}: confirm fails the payment with payment_declined`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnConfirm))
      yield* confirm(intent.id)
      yield* work
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "payment_declined")
      assert.isString(after.failure_message)
      assert.isNull(after.next_action)
      assert.deepStrictEqual((yield* events(intent.id)).slice(-1), ["payment_intent.failed"])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.slowConfirmation}: processing first (no next_action, processing_reason asynchronous), then succeeded`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.slowConfirmation))
      yield* confirm(intent.id)
      yield* work
      const processing = yield* get(intent.id)
      assert.strictEqual(processing.status, "processing")
      assert.isNull(processing.next_action)
      assert.strictEqual(processing.processing_reason, "asynchronous")
      // The provider settles it slowConfirmationMillis after create; polls back off until then.
      for (let i = 0; i < 10 && (yield* get(intent.id)).status === "processing"; i++) {
        yield* TestClock.adjust(Duration.seconds(2))
        yield* work
      }
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "succeeded")
      assert.isNull(after.processing_reason)
      assert.deepStrictEqual(yield* events(intent.id), [
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.processing",
        "payment_intent.succeeded"
      ])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.expireSoon}: the payer action expires after ${Simulator.shortExpiryMillis} ms and the intent is expired`, () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.expireSoon))
      // Confirming changes nothing: the payer never pays.
      yield* confirm(intent.id)
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      yield* expiresAtShortExpiry(get(intent.id), "requires_action")
      assert.deepStrictEqual((yield* events(intent.id)).slice(-1), ["payment_intent.expired"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.1 never after a terminal status: the expiry timer of a payment that succeeded changes nothing", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      yield* work
      yield* TestClock.adjust(Duration.hours(2))
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
      assert.deepStrictEqual(yield* events(intent.id), ["payment_intent.created", "payment_intent.requires_action", "payment_intent.succeeded"])
      // Every task is done: nothing is left due, ever.
      assert.isUndefined(yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue))
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 a terminal intent cannot be confirmed: 409 payment_intent_unexpected_state, and nothing is recorded", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnCreate))
      assert.strictEqual(intent.status, "failed")
      const r = yield* confirm(intent.id)
      assert.deepStrictEqual(refusal(r), { status: 409, code: "payment_intent_unexpected_state" })
      assert.strictEqual(yield* work, 0)
    }).pipe(Effect.provide(layer())))

  it.effect("4.5 a hosted intent with no payment at a provider yet cannot be confirmed: 409 payment_intent_unexpected_state", () =>
    Effect.gen(function*() {
      const intent = yield* create({ amount: "150000", currency: "THB", country: "TH", customer: {} })
      const r = yield* confirm(intent.id)
      assert.deepStrictEqual(refusal(r), { status: 409, code: "payment_intent_unexpected_state" })
    }).pipe(Effect.provide(layer())))

  it.effect("4.2 confirm of an unknown id, another merchant's or another environment's: the same 404; a malformed id: 400", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      for (const [key, id] of [[keys.demoTest, "dord_000000000000000000000000"], [keys.otherTest, intent.id], [keys.demoLive, intent.id]] as const) {
        const r = yield* confirm(id, key)
        assert.deepStrictEqual(refusal(r), { status: 404, code: "resource_not_found" })
      }
      const bad = yield* confirm("nope")
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(errorOf(bad).param, "id")
      assert.strictEqual(yield* work, 0)
    }).pipe(Effect.provide(layer())))

  it.effect("4.9.4 a confirm retried with its Idempotency-Key replays its answer and records one task", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      const first = yield* confirm(intent.id, keys.demoTest, "confirm-key")
      const again = yield* confirm(intent.id, keys.demoTest, "confirm-key")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
      assert.strictEqual(yield* work, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("3.1.6 a provider unavailable at confirm is asked again with back-off until it answers; nothing is lost", () => {
    let failures = 2
    const sim = Simulator.make()
    const provider: Provider.PaymentProvider = {
      ...sim,
      confirmPayment: (ref) =>
        Effect.suspend(() =>
          failures-- > 0 ? Effect.fail(new Provider.ProviderUnavailable({ provider: "simulator", reason: "down" })) : sim.confirmPayment(ref)
        )
    }
    return Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      yield* work
      assert.strictEqual((yield* get(intent.id)).status, "requires_action")
      const waiting = (yield* Effect.flatMap(Task.Tasks, (t) => t.nextDue))!
      const now = yield* TestClock.currentTimeMillis
      assert.isAbove(waiting, now)
      for (let i = 0; i < 5 && (yield* get(intent.id)).status !== "succeeded"; i++) {
        yield* TestClock.adjust(Duration.minutes(1))
        yield* work
      }
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
    }).pipe(Effect.provide(layer({ providers: [provider] })))
  })

  it.effect("D7 a task's change applies once: the same claimed task run twice writes one event", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      const now = yield* TestClock.currentTimeMillis
      const [task] = yield* Effect.flatMap(Task.Tasks, (t) => t.claim({ now, owner: "a", leaseMillis: 60_000, limit: 10 }))
      assert.isTrue(yield* Workers.runTask(task!))
      assert.isFalse(yield* Workers.runTask(task!))
      assert.deepStrictEqual((yield* events(intent.id)).filter((e) => e === "payment_intent.succeeded"), ["payment_intent.succeeded"])
    }).pipe(Effect.provide(layer())))

  it.effect("3.1 every write goes through the transitions: a change out of a terminal status is a defect, never written", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay(Simulator.magicAmounts.declineOnCreate))
      const record = Option.getOrThrow(
        yield* Effect.flatMap(Storage.Storage, (s) => s.get(PaymentIntent.table, { merchantId: "mch_demo", environment: "test" }, intent.id))
      )
      const exit = yield* Effect.exit(PaymentIntentLifecycle.change(record, { status: "succeeded", failureCode: null, failureMessage: null }, record.updatedAt))
      assert.isTrue(exit._tag === "Failure")
    }).pipe(Effect.provide(layer())))

  it.live("workers as a layer wake on new work: a confirm is applied without waiting for the poll interval", () =>
    Effect.gen(function*() {
      const intent = yield* create(promptpay())
      yield* confirm(intent.id)
      for (let i = 0; i < 100 && (yield* get(intent.id)).status !== "succeeded"; i++) yield* Effect.sleep(Duration.millis(20))
      assert.strictEqual((yield* get(intent.id)).status, "succeeded")
    }).pipe(
      Effect.provide(Workers.layer({ pollMillis: 60_000 }).pipe(Layer.provideMerge(layer()))),
      Effect.scoped
    ))
})

const jpeg = () => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46])

const bankTransfer = (amount = "150000"): Body => ({
  amount,
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_bank_transfer",
  customer: { name: "Somchai Jaidee" },
  payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" }
})

const upload = (bytes: Uint8Array, idempotencyKey: string = crypto.randomUUID(), key: Key = keys.demoTest) =>
  Effect.flatMap(login(key), (principal) => Asset.upload({ principal, requestId: "req_upload", idempotencyKey }, bytes))

const submit = (id: string, evidence: Receipts.Evidence, idempotencyKey?: string) =>
  Effect.flatMap(login(keys.demoTest), (principal) => Receipts.submit({ principal, requestId: "req_receipt", idempotencyKey }, id, evidence))

describe("receipts and assets (4.4, 8, D3)", () => {
  it.effect("2.1 a method that asks for payment evidence starts with receipt.status required; others have no receipt", () =>
    Effect.gen(function*() {
      const bt = yield* create(bankTransfer())
      assert.deepStrictEqual((yield* get(bt.id)).receipt, { status: "required" })
      const qr = yield* create(promptpay())
      assert.isNull((yield* get(qr.id)).receipt)
    }).pipe(Effect.provide(layer())))

  it.effect("D3 POST /assets stores a PNG or JPEG told by its bytes: 201 {object, id asst_, content_type, size, sha256, created_at}", () =>
    Effect.gen(function*() {
      const r = yield* upload(png(100))
      assert.strictEqual(r.status, 201, r.body)
      const asset = json(r)
      assert.deepStrictEqual(Object.keys(asset), ["object", "id", "content_type", "size", "sha256", "created_at"])
      assert.strictEqual(asset.object, "asset")
      assert.match(asset.id, /^asst_[0-9A-Za-z]{24}$/)
      assert.strictEqual(asset.content_type, "image/png")
      assert.strictEqual(asset.size, 100)
      assert.strictEqual(asset.sha256, Buffer.from(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", png(100)))).toString("hex"))
      assert.strictEqual(json(yield* upload(jpeg())).content_type, "image/jpeg")
    }).pipe(Effect.provide(layer())))

  it.effect("8 a file of exactly 5 MiB is accepted; one byte more, an empty file, or bytes that are no JPEG or PNG are 400 param file", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* upload(png(Asset.maxBytes))).status, 201)
      for (const bad of [png(Asset.maxBytes + 1), new Uint8Array(0), new TextEncoder().encode("GIF89a not an image")]) {
        const r = yield* upload(bad)
        assert.strictEqual(r.status, 400)
        assert.strictEqual(errorOf(r).param, "file")
      }
    }).pipe(Effect.provide(layer())))

  it.effect("4.4 an upload's fingerprint is the file's SHA-256: the same key with the same file replays, with another file 409", () =>
    Effect.gen(function*() {
      const first = yield* upload(png(80), "upload-key")
      const again = yield* upload(png(80), "upload-key")
      assert.isTrue(again.replayed)
      assert.strictEqual(again.body, first.body)
      const other = yield* upload(png(81), "upload-key")
      assert.deepStrictEqual(refusal(other), { status: 409, code: "idempotency_conflict" })
    }).pipe(Effect.provide(layer())))

  it.effect("4.4 a receipt by asset_id: 200 with receipt submitted, processing; the provider accepts it and the payment succeeds", () =>
    Effect.gen(function*() {
      const intent = yield* create(bankTransfer())
      const asset = json(yield* upload(png()))
      const r = yield* submit(intent.id, { _tag: "AssetId", assetId: asset.id })
      assert.strictEqual(r.status, 200, r.body)
      const body = json(r)
      assert.strictEqual(body.status, "processing")
      assert.isNull(body.next_action)
      assert.strictEqual(body.processing_reason, "asynchronous")
      assert.deepStrictEqual(body.receipt, { status: "submitted", asset_id: asset.id })
      yield* work
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "succeeded")
      assert.deepStrictEqual(after.receipt, { status: "accepted", asset_id: asset.id })
      assert.deepStrictEqual(yield* events(intent.id), [
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.processing",
        "payment_intent.receipt_submitted",
        "payment_intent.succeeded"
      ])
    }).pipe(Effect.provide(layer())))

  it.effect(`D9 magic amount ${Simulator.magicAmounts.rejectReceipt}: a receipt uploaded with the request is rejected and the payment fails`, () =>
    Effect.gen(function*() {
      const intent = yield* create(bankTransfer(Simulator.magicAmounts.rejectReceipt))
      const r = yield* submit(intent.id, { _tag: "File", bytes: jpeg() }, "receipt-key")
      assert.strictEqual(r.status, 200, r.body)
      yield* work
      const after = yield* get(intent.id)
      assert.strictEqual(after.status, "failed")
      assert.strictEqual(after.failure_code, "receipt_rejected")
      assert.strictEqual(after.receipt?.status, "rejected")
    }).pipe(Effect.provide(layer())))

  it.effect("4.4 a receipt where none is asked, a second receipt, or another merchant's asset is refused; nothing changes", () =>
    Effect.gen(function*() {
      const qr = yield* create(promptpay())
      const asset = json(yield* upload(png()))
      const none = yield* submit(qr.id, { _tag: "AssetId", assetId: asset.id })
      assert.deepStrictEqual(refusal(none), { status: 409, code: "payment_intent_unexpected_state" })
      const bt = yield* create(bankTransfer())
      const foreign = json(yield* upload(png(), undefined, keys.otherTest))
      const notMine = yield* submit(bt.id, { _tag: "AssetId", assetId: foreign.id })
      assert.strictEqual(notMine.status, 404)
      assert.strictEqual(errorOf(notMine).param, "asset_id")
      assert.strictEqual((yield* get(bt.id)).status, "requires_action")
      assert.strictEqual((yield* submit(bt.id, { _tag: "AssetId", assetId: asset.id })).status, 200)
      const twice = yield* submit(bt.id, { _tag: "AssetId", assetId: asset.id })
      assert.deepStrictEqual(refusal(twice), { status: 409, code: "payment_intent_unexpected_state" })
    }).pipe(Effect.provide(layer())))
})
