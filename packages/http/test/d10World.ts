/**
 * The world of the D10 black-box tests (cancel and refunds over HTTP): a fetch handler and the
 * workers over one in-memory store, with helpers to create, pay and refund through HTTP only.
 * The workers that run the provider tasks are drained explicitly (`Workers.drain`), so no test
 * waits on a clock. Shared by the D10 HTTP tests; not a test file itself.
 */
import { assert } from "@effect/vitest"
import { Event, Simulator, Workers } from "@tender/core"
import { formWith, png, promptpayFor } from "@tender/repo-test-support"
import { atFileEnd } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { keys, layer } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import { call, type Key } from "./harness.js"

/** A handler and the workers over the same store; `paid` drives a payment to `succeeded`. */
export const world = async () => {
  const runtime = ManagedRuntime.make(layer())
  const context = await runtime.runPromise(Effect.context<TenderHttp.Services>())
  const { dispose, handler } = TenderHttp.toWebHandler(Layer.succeedContext(context))
  atFileEnd(async () => {
    await dispose()
    await runtime.dispose()
  })
  const req = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(handler, method, path, { key: keys.demoTest, ...options })
  const work = async () => {
    for (let i = 0; i < 4; i++) await runtime.runPromise(Workers.drain({ owner: "test" }))
  }
  const intent = async (amount = "150000", body: Record<string, unknown> = promptpayFor(amount)) => {
    const res = await req("POST", "/payment_intents", { body: { ...body, amount } })
    assert.strictEqual(res.status, 201, res.text)
    return res.json
  }
  const paid = async (amount = "150000", body?: Record<string, unknown>) => {
    const created = await intent(amount, body)
    if (body?.payment_method === "th_bank_transfer") {
      const submitted = await req("POST", `/payment_intents/${created.id}/receipt`, {
        form: formWith(png()),
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      assert.strictEqual(submitted.status, 200, submitted.text)
    } else {
      assert.strictEqual((await req("POST", `/payment_intents/${created.id}/confirm`)).status, 200)
    }
    await work()
    const got = await req("GET", `/payment_intents/${created.id}`)
    assert.strictEqual(got.json.status, "succeeded", got.text)
    return got.json
  }
  const refund = (body: Record<string, unknown>, key: Key = keys.demoTest, headers: Record<string, string> = {}) =>
    req("POST", "/refunds", { key, body, headers })
  /** The events of one resource as stored (D7: written with the change), as envelopes. */
  const events = (resourceId: string) =>
    runtime.runPromise(Event.forResource({ merchantId: "mch_demo", environment: "test" }, resourceId)).then((rows) => rows.map(Event.toEnvelope))
  /** A paid payment with one refund that succeeds and one the simulator fails, both settled. */
  const settledRefunds = async () => {
    const pi = await paid()
    const ok = (await refund({ payment_intent: pi.id, amount: "100" })).json
    const ko = (await refund({ payment_intent: pi.id, amount: Simulator.magicAmounts.refundFails })).json
    await work()
    return { pi, ok, ko }
  }
  return { handler, req, work, intent, paid, refund, settledRefunds, events }
}

export const absent = "dord_000000000000000000000000"
export const D4Time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The fields of a D10 refund, exactly. */
export const fields = [
  "object",
  "id",
  "environment",
  "payment_intent",
  "amount",
  "currency",
  "status",
  "reason",
  "merchant_reference",
  "destination",
  "failure_code",
  "failure_message",
  "metadata",
  "created_at",
  "updated_at"
]
