/**
 * Webhook delivery with a real HTTP receiver on loopback (6, D7): endpoints registered over
 * HTTP, every payment event signed and verified by the independent `standardwebhooks`
 * package, retries after a failure, the timeout of a receiver that hangs, filters, deletion
 * and secret rotation. Deliveries go through `WebhookClient` (`@effect/platform`'s HttpClient).
 */
import { assert, describe, it } from "@effect/vitest"
import { Event, PaymentIntents, Simulator, Storage, WebhookDelivery, WebhookEndpoint, WebhookSignature, Workers } from "@tender/core"
import { closeReceivers, formWith, png, promptpayFor, type Received, receiver } from "@tender/repo-test-support"
import { Duration, Effect, Either, Layer, ManagedRuntime, Option, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll } from "vitest"
import { decodeParams, keys, layer, login } from "../../core/test/fixtures.js"
import { TenderHttp, WebhookClient } from "../src/index.js"
import { basic, call } from "./harness.js"

afterAll(closeReceivers)

const services = (timeoutMillis = 5_000) => layer({ transport: WebhookClient.layerFetch, webhooks: { timeoutMillis } })

const promptpay = promptpayFor

const register = (url: string, enabledEvents?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const r = yield* WebhookEndpoint.create(
      { principal, requestId: "req_we" },
      { url, ...(enabledEvents === undefined ? {} : { enabled_events: enabledEvents as Array<"*"> }) }
    )
    assert.strictEqual(r.status, 201, r.body)
    return JSON.parse(r.body) as { id: string; secret: string }
  })

const createIntent = (amount: string) =>
  Effect.gen(function*() {
    const principal = yield* login(keys.demoTest)
    const r = yield* PaymentIntents.create({ principal, requestId: "req_c" }, yield* Effect.orDie(decodeParams(promptpay(amount))))
    return JSON.parse(r.body).id as string
  })

const confirm = (id: string) => Effect.flatMap(login(keys.demoTest), (principal) => PaymentIntents.confirm({ principal, requestId: "req_f" }, id))

const work = Workers.drain({ owner: "test" })

/** Deliveries of `id`'s events to `path`, verified with the independent library. */
const verified = (received: ReadonlyArray<Received>, path: string, secret: string) =>
  received.filter((r) => r.path === path).map((r) => {
    const event = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Event.Envelope
    assert.strictEqual(r.headers["webhook-id"], event.id)
    assert.strictEqual(r.headers["content-type"], "application/json")
    return event
  })

describe("webhook delivery to a real receiver (6, D7)", () => {
  it(
    "D7 D10 a merchant registers over HTTP, drives payments to every outcome, cancels and refunds, and its receiver verifies every event type emitted with standardwebhooks",
    async () => {
      const r = await receiver()
      const runtime = ManagedRuntime.make(services())
      const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
      const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
      try {
        const registered = await call(handler, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: r.url("/ok") } })
        assert.strictEqual(registered.status, 201, registered.text)
        const secret = registered.json.secret as string
        const post = (path: string, body?: unknown) =>
          call(handler, "POST", path, { key: keys.demoTest, ...(body === undefined ? {} : { body }) }).then((x) => x.json)
        const paid = (await post("/payment_intents", promptpay("150000"))).id
        const declined = (await post("/payment_intents", promptpay(Simulator.magicAmounts.declineOnConfirm))).id
        const slow = (await post("/payment_intents", promptpay(Simulator.magicAmounts.slowConfirmation))).id
        const transfer = (await post("/payment_intents", {
          ...promptpay("150000"),
          payment_method: "th_bank_transfer",
          payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" }
        })).id
        for (const id of [paid, declined, slow]) await post(`/payment_intents/${id}/confirm`)
        const submitted = await handler(
          new Request(`http://localhost/payment_intents/${transfer}/receipt`, {
            method: "POST",
            headers: { authorization: basic(keys.demoTest), "idempotency-key": crypto.randomUUID() },
            body: formWith(png())
          })
        )
        assert.strictEqual(submitted.status, 200)
        for (let i = 0; i < 5; i++) await runtime.runPromise(work)
        // D10: a cancel, a refund that succeeds and one that fails, delivered like any other event.
        const canceled = (await post("/payment_intents", promptpay("150000"))).id
        assert.strictEqual((await post(`/payment_intents/${canceled}/cancel`, {})).status, "canceled")
        assert.strictEqual((await post("/refunds", { payment_intent: paid, amount: "1000" })).status, "pending")
        assert.strictEqual((await post("/refunds", { payment_intent: paid, amount: Simulator.magicAmounts.refundFails })).status, "pending")
        for (let i = 0; i < 5; i++) await runtime.runPromise(work)
        const events = verified(r.received, "/ok", secret)
        const types = new Set(events.map((e) => e.type))
        for (
          const type of [
            "payment_intent.created",
            "payment_intent.requires_action",
            "payment_intent.processing",
            "payment_intent.succeeded",
            "payment_intent.failed",
            "payment_intent.receipt_submitted",
            "payment_intent.canceled",
            "refund.created",
            "refund.succeeded",
            "refund.failed"
          ]
        ) assert.isTrue(types.has(type as Event.Envelope["type"]), `${type} was not delivered`)
        // Each event once, with the resource as it was after its change.
        assert.strictEqual(new Set(events.map((e) => e.id)).size, events.length)
        const succeeded = events.find((e) => e.type === "payment_intent.succeeded" && e.data.object["id"] === paid)
        assert.strictEqual(succeeded?.data.object["status"], "succeeded")
        // Every attempt is readable from core, for a delivery log.
        const log = await runtime.runPromise(WebhookDelivery.attempts({ merchantId: "mch_demo", environment: "test" }, { endpointId: registered.json.id }))
        assert.strictEqual(log.length, events.length)
        assert.isTrue(log.every((a) => a.statusCode === 200 && a.error === null && a.attempt === 1))
      } finally {
        await dispose()
        await runtime.dispose()
      }
    },
    30_000
  )

  it.effect("D7 a receiver answering 500 gets the event again after the back-off, and the log shows both attempts", () =>
    Effect.gen(function*() {
      // Signatures carry the clock's time; receivers check it against theirs.
      yield* TestClock.setTime(Date.now())
      const r = yield* Effect.promise(receiver)
      const endpoint = yield* register(r.url("/flaky"), ["payment_intent.created"])
      const id = yield* createIntent("150000")
      yield* work
      assert.strictEqual(r.received.filter((x) => x.path === "/flaky").length, 1)
      // Not before the back-off…
      yield* TestClock.adjust(Duration.seconds(4))
      yield* work
      assert.strictEqual(r.received.filter((x) => x.path === "/flaky").length, 1)
      // …and after it: delivered.
      yield* TestClock.adjust(Duration.seconds(4))
      yield* work
      const events = verified(r.received, "/flaky", endpoint.secret)
      assert.deepStrictEqual(events.map((e) => e.data.object["id"]), [id, id])
      assert.strictEqual(events[0]!.id, events[1]!.id)
      const log = yield* WebhookDelivery.attempts({ merchantId: "mch_demo", environment: "test" }, { endpointId: endpoint.id })
      assert.deepStrictEqual(log.map((a) => [a.attempt, a.statusCode]).sort(), [[1, 500], [2, 200]])
    }).pipe(Effect.provide(services())))

  it.effect(`D7 payment_intent.expired reaches the receiver when an action expires (magic amount ${Simulator.magicAmounts.expireSoon})`, () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const r = yield* Effect.promise(receiver)
      const endpoint = yield* register(r.url("/expired"), ["payment_intent.expired"])
      const id = yield* createIntent(Simulator.magicAmounts.expireSoon)
      yield* TestClock.adjust(Duration.millis(Simulator.shortExpiryMillis))
      yield* work
      yield* work
      const at = yield* TestClock.currentTimeMillis
      const delivered = r.received.filter((x) => x.path === "/expired")
      assert.lengthOf(delivered, 1)
      const event = Either.getOrThrow(
        WebhookSignature.verify(delivered[0]!.body, delivered[0]!.headers as Record<string, string>, endpoint.secret, { now: at })
      ) as Event.Envelope
      assert.strictEqual(event.type, "payment_intent.expired")
      assert.strictEqual(event.data.object["id"], id)
      assert.strictEqual(event.data.object["status"], "expired")
    }).pipe(Effect.provide(services())))

  it.live("D7 a receiver that hangs is cut off at the delivery timeout, recorded, and retried", () =>
    Effect.gen(function*() {
      const r = yield* Effect.promise(receiver)
      const endpoint = yield* register(r.url("/hang"), ["payment_intent.created"])
      yield* createIntent("150000")
      const started = Date.now()
      yield* work
      assert.isBelow(Date.now() - started, 4_000, "the worker waited for a receiver that never answers")
      const [attempt] = yield* WebhookDelivery.attempts({ merchantId: "mch_demo", environment: "test" }, { endpointId: endpoint.id })
      assert.isNull(attempt?.statusCode)
      assert.match(attempt?.error ?? "", /no answer within 300 ms/)
    }).pipe(Effect.provide(services(300))))

  it.effect("D7 an endpoint hears only the types it enabled; a deleted endpoint hears nothing more", () =>
    Effect.gen(function*() {
      const r = yield* Effect.promise(receiver)
      yield* register(r.url("/only-succeeded"), ["payment_intent.succeeded"])
      const removed = yield* register(r.url("/removed"))
      const principal = yield* login(keys.demoTest)
      assert.strictEqual((yield* WebhookEndpoint.remove({ principal, requestId: "req_d" }, removed.id)).status, 200)
      const id = yield* createIntent("150000")
      yield* confirm(id)
      for (let i = 0; i < 3; i++) yield* work
      assert.deepStrictEqual(r.received.filter((x) => x.path === "/only-succeeded").map((x) => JSON.parse(x.body).type), ["payment_intent.succeeded"])
      assert.deepStrictEqual(r.received.filter((x) => x.path === "/removed"), [])
    }).pipe(Effect.provide(services())))

  it.effect("D7 a rotated secret: both secrets sign during the grace period, so receivers on either verify; after it, only the new one", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const r = yield* Effect.promise(receiver)
      const endpoint = yield* register(r.url("/rotating"), ["payment_intent.created"])
      const fresh = yield* WebhookEndpoint.rotateSecret({ merchantId: "mch_demo", environment: "test" }, endpoint.id, 60_000)
      assert.notStrictEqual(fresh, endpoint.secret)
      yield* createIntent("150000")
      yield* work
      const during = r.received.filter((x) => x.path === "/rotating")
      assert.lengthOf(during, 1)
      assert.lengthOf(String(during[0]!.headers["webhook-signature"]).split(" "), 2)
      verified(during, "/rotating", endpoint.secret)
      verified(during, "/rotating", fresh)
      yield* TestClock.adjust(Duration.minutes(2))
      yield* createIntent("150000")
      yield* work
      const after = r.received.filter((x) => x.path === "/rotating").slice(1)
      assert.lengthOf(after, 1)
      assert.lengthOf(String(after[0]!.headers["webhook-signature"]).split(" "), 1)
      // Checked at the clock the signature was made at: two minutes after the real now.
      const at = yield* TestClock.currentTimeMillis
      assert.isTrue(Either.isRight(WebhookSignature.verify(after[0]!.body, after[0]!.headers as Record<string, string>, fresh, { now: at })))
      assert.isTrue(Either.isLeft(WebhookSignature.verify(after[0]!.body, after[0]!.headers as Record<string, string>, endpoint.secret, { now: at })))
    }).pipe(Effect.provide(services())))

  it.effect("6 an endpoint URL must be https in live and may not point at a private address there; http and loopback are fine in test", () =>
    Effect.gen(function*() {
      for (
        const [env, url, ok] of [
          ["test", "http://127.0.0.1:8080/hook", true],
          ["test", "https://hooks.example.com/x", true],
          ["live", "https://hooks.example.com/x", true],
          ["live", "http://hooks.example.com/x", false],
          ["live", "https://127.0.0.1/x", false],
          ["live", "https://10.1.2.3/x", false],
          ["live", "https://169.254.169.254/latest/meta-data", false],
          ["live", "https://[::1]/x", false],
          ["live", "https://[fd00::1]/x", false],
          ["live", "https://localhost/x", false],
          ["live", "https://user:pass@hooks.example.com/x", false],
          ["test", "ftp://hooks.example.com/x", false],
          ["test", "not a url", false]
        ] as const
      ) {
        const result = yield* Effect.either(WebhookEndpoint.checkUrl(url, env))
        assert.strictEqual(result._tag === "Right", ok, `${env} ${url}`)
      }
    }).pipe(Effect.provide(services())))

  it.effect("6 a host may allow private addresses in live, for development", () =>
    Effect.gen(function*() {
      const result = yield* Effect.either(WebhookEndpoint.checkUrl("https://127.0.0.1/x", "live"))
      assert.strictEqual(result._tag, "Right")
    }).pipe(Effect.provide(layer({ transport: WebhookClient.layerFetch, webhooks: { allowPrivateUrls: true } }))))

  it.effect("D7 the signing secret is stored encrypted, never in clear, and reads back to sign", () =>
    Effect.gen(function*() {
      const endpoint = yield* register("http://127.0.0.1:9/hook")
      const record = Option.getOrThrow(
        yield* Effect.flatMap(Storage.Storage, (s) => s.get(WebhookEndpoint.table, { merchantId: "mch_demo", environment: "test" }, endpoint.id))
      )
      assert.notInclude(JSON.stringify(record), endpoint.secret)
      assert.notInclude(JSON.stringify(record), endpoint.secret.slice("whsec_".length))
      assert.deepStrictEqual(yield* WebhookEndpoint.signingSecrets(record, Date.now()), [endpoint.secret])
    }).pipe(Effect.provide(services())))
})
