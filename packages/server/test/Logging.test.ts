/**
 * What the Promise API logs: a 4xx is the call's answer (a payout approved after its cancel is a
 * 409 the host expects), logged at debug at most; a 5xx or a defect is a fault, logged at error
 * through the host's logger.
 */
import { Errors } from "@tender/core"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, isTenderError, TenderError, type TenderInstance } from "../src/index.js"
import * as HostLogger from "../src/internal/logger.js"
import { run } from "../src/internal/run.js"
import { quietOptions } from "./fixtures.js"

interface Line {
  readonly level: string
  readonly message: string
  readonly fields: Record<string, unknown>
}

/** A host logger that keeps every line, debug included. */
const capturing = () => {
  const lines: Array<Line> = []
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields })
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } }
}

const demo = { merchant: "mch_demo", environment: "test" } as const
const payout = {
  amount: "10000",
  currency: "THB",
  merchant_reference: `po-${crypto.randomUUID()}`,
  destination: { type: "bank_account", bank: "KBANK", account_number: "1234567890", account_name: "Somchai Jaidee" }
} as const

const rejectionOf = (promise: Promise<unknown>): Promise<TenderError> =>
  promise.then(() => assert.fail("expected a rejection"), (e: unknown) => {
    assert.isTrue(isTenderError(e), String(e))
    return e as TenderError
  })

describe("Promise API logging", () => {
  const host = capturing()
  let tender: TenderInstance
  beforeAll(async () => {
    tender = await createTender({ ...quietOptions, logger: host.logger })
  })
  afterAll(() => tender.close())

  it("server: payoutIntents.approve losing to a cancel rejects 409 and logs nothing at warn or error", async () => {
    // D12: the payout draws from a balance. This instance runs no workers to pay a test_funding
    // top-up, so the host funds it with an adjustment.
    await tender.balances.adjust({ amount: payout.amount, currency: "THB", description: "funding", idempotency_key: "fund" }, demo)
    const created = await tender.payoutIntents.create(payout, demo)
    await tender.payoutIntents.cancel(created.id, demo)
    const error = await rejectionOf(tender.payoutIntents.approve(created.id, demo))
    assert.deepStrictEqual([error.status, error.code], [409, "payout_not_approvable"])
    const missing = await rejectionOf(tender.paymentIntents.retrieve("dord_000000000000000000000000", demo))
    assert.strictEqual(missing.status, 404)
    assert.deepStrictEqual(host.lines.filter((l) => l.level === "error" || l.level === "warn"), [])
  })
})

describe("run: the log level of an outcome", () => {
  const host = capturing()
  // Debug lines let through, so the test sees where an expected outcome goes.
  const runtime = ManagedRuntime.make(Layer.merge(HostLogger.layer(host.logger), Logger.minimumLogLevel(LogLevel.Debug)))
  afterAll(() => runtime.dispose())
  // Effect's own debug line for a fiber that ended in a failure is not Tender's.
  const tenders = () => host.lines.filter((l) => l.message.startsWith("tender:")).map((l) => [l.level, l.message])

  it("server: a 4xx TenderError or API error is logged at debug; a 5xx API error and a defect at error, as operation failed", async () => {
    const conflict = new TenderError({ code: "payout_not_approvable", status: 409, message: "canceled" })
    await rejectionOf(run(runtime, () => Effect.fail(conflict)))
    await rejectionOf(run(runtime, () => Effect.fail(Errors.ValidationFailed.at("id", "bad id"))))
    assert.deepStrictEqual(tenders(), [
      ["debug", "tender: operation answered 409 payout_not_approvable"],
      ["debug", "tender: operation answered 400 validation_failed"]
    ])
    host.lines.length = 0
    const unavailable = await rejectionOf(run(runtime, () => Effect.fail(new Errors.ServiceUnavailable({ message: "store down" }))))
    assert.strictEqual(unavailable.status, 503)
    const defect = await rejectionOf(run(runtime, () => Effect.die(new Error("a bug"))))
    assert.strictEqual(defect.code, "internal_error")
    assert.deepStrictEqual(tenders(), [["error", "tender: operation failed"], ["error", "tender: operation failed"]])
    assert.include(String(host.lines.filter((l) => l.level === "error")[1]!.fields["cause"]), "a bug")
  })
})
