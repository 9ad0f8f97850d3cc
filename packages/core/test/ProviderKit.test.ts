/**
 * The adapter kit (docs/provider-adapters.md, "The adapter kit"): one rule for faults and
 * refusals, a bounded call, the one list of failure codes, the idempotency keys, the amount a
 * vendor's JSON can hold, the method table and the per-account build.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Fiber, Schema, TestClock } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Provider, ProviderKit } from "../src/index.js"

const spec: ProviderKit.VendorSpec = {
  provider: "acme",
  name: "Acme",
  timeoutMillis: 1_000,
  declines: { insufficient_funds: ["nsf"] },
  errorOf: (e) => (e as { readonly answer?: ProviderKit.VendorError }).answer
}
const acme = ProviderKit.vendor(spec)
const answered = (status: number, codes?: ReadonlyArray<string>) => ({ answer: { status, ...(codes === undefined ? {} : { codes }) } })
const failWith = (thrown: unknown) => Effect.flip(acme.call(() => Promise.reject(thrown)))

describe("ProviderKit", () => {
  it.effect("one rule: no answer, a 5xx, 401, 403, 404, 408, 409 and 429 are ProviderUnavailable; whether the vendor may have acted is told", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, boolean]> = [
        [answered(500), true],
        [answered(503), true],
        [answered(409), true],
        [answered(401), false],
        [answered(403), false],
        [answered(404), false],
        [answered(408), false],
        [answered(429), false],
        // No answer: a connection refused never reached the vendor; one dropped after sending may have.
        [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }), false],
        [{ name: "ApiException", message: "self-signed certificate in certificate chain" }, false],
        [{ detail: { code: "ENOTFOUND" } }, false],
        [new Error("socket hang up"), true]
      ]
      for (const [thrown, ambiguous] of cases) {
        const error = yield* failWith(thrown)
        assert.strictEqual(error._tag, "ProviderUnavailable", JSON.stringify(thrown))
        assert.strictEqual((error as Provider.ProviderUnavailable).ambiguous, ambiguous, JSON.stringify(thrown))
        assert.strictEqual(ProviderKit.mayHaveActed(error as Provider.ProviderUnavailable), ambiguous)
      }
      // An adapter that does not say is taken at its most cautious.
      assert.isTrue(ProviderKit.mayHaveActed(new Provider.ProviderUnavailable({ provider: "x", reason: "y" })))
    }))

  it("47.1 one reading of ambiguous: every module asks mayHaveActed, defined beside ProviderUnavailable", () => {
    const root = resolve(import.meta.dirname, "../src")
    const files = (dir: string): Array<string> =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [])
    const home = join(root, "providers/internal/providerUpdate.ts")
    const readers = files(root).filter((f) => f !== home && /\.ambiguous\b/.test(readFileSync(f, "utf8")))
    assert.deepStrictEqual(readers.map((f) => f.slice(root.length + 1)), [])
    assert.match(readFileSync(home, "utf8"), /export const mayHaveActed = /)
  })

  it.effect("D1 any other 4xx is a refusal in Tender's words: the vendor's code mapped, an unknown one payment_declined, none provider_rejected", () =>
    Effect.gen(function*() {
      const mapped = yield* failWith(answered(402, ["nsf"]))
      assert.deepInclude(mapped, { _tag: "VendorRejected", ...ProviderKit.failure("insufficient_funds") })
      assert.deepInclude(yield* failWith(answered(402, ["stolen_card"])), ProviderKit.failure("payment_declined"))
      assert.deepInclude(yield* failWith(answered(422)), ProviderKit.failure("provider_rejected"))
      // A create answers it as Failed; a read as a fault; a refund as refund_failed.
      const created = yield* acme.created(acme.call(() => Promise.reject(answered(400, ["nsf"]))), () => "pi_1")
      assert.deepStrictEqual(created, { _tag: "Failed", providerPaymentId: "pi_1", ...ProviderKit.failure("insufficient_funds") })
      const read = yield* Effect.flip(acme.read(() => Promise.reject(answered(400))))
      assert.deepInclude(read, { _tag: "ProviderUnavailable", ambiguous: false })
      assert.deepStrictEqual(yield* acme.refunded(acme.call(() => Promise.reject(answered(400)))), { _tag: "Failed", ...ProviderKit.failure("refund_failed") })
    }))

  it.effect("a call the vendor never answers ends at the bound, ambiguous (it may have acted)", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.flip(acme.call(() => new Promise<never>(() => {}))))
      yield* TestClock.adjust(1_000)
      const error = yield* Fiber.join(fiber)
      assert.deepInclude(error, { _tag: "ProviderUnavailable", provider: "acme", ambiguous: true })
    }))

  it.prop(
    "money: every safe integer amount reaches the vendor as exactly that integer",
    [fc.maxSafeNat()],
    ([n]) => Either.getOrThrow(ProviderKit.vendorInteger(String(n))) === n
  )

  it.prop(
    "money: every amount above 2^53 - 1 is refused before the vendor is called, never rounded",
    [fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) + 1n, max: 10n ** 40n })],
    ([n]) => {
      const refused = ProviderKit.vendorInteger(n.toString())
      return Either.isLeft(refused) && refused.left.failureCode === "provider_rejected"
    }
  )

  it("money: anything but a non-negative integer string is refused", () => {
    for (const amount of ["", "-1", "1.5", "1e3", "01", " 1", "0x10"]) assert.isTrue(Either.isLeft(ProviderKit.vendorInteger(amount)), amount)
  })

  it.effect("a refused amount is a create's provider_rejected, and nothing is sent", () =>
    Effect.gen(function*() {
      let sent = 0
      const result = yield* acme.created(Effect.flatMap(acme.integer("9007199254740993"), () =>
        acme.call(async () => {
          sent++
          return { _tag: "Processing", providerPaymentId: "x" } as const
        })))
      assert.deepInclude(result, { _tag: "Failed", failureCode: "provider_rejected" })
      assert.strictEqual(sent, 0)
    }))

  it("the idempotency key of each operation: the intent id, {id}/cancel, the refund, payout and top-up ids", () => {
    assert.deepStrictEqual([
      ProviderKit.idempotencyKey("create", { paymentIntentId: "dord_1" }),
      ProviderKit.idempotencyKey("cancel", { paymentIntentId: "dord_1" }),
      ProviderKit.idempotencyKey("refund", { refundId: "rfnd_1" }),
      ProviderKit.idempotencyKey("payout", { payoutIntentId: "pout_1" }),
      ProviderKit.idempotencyKey("topup", { topupIntentId: "tpup_1" })
    ], ["dord_1", "dord_1/cancel", "rfnd_1", "pout_1", "tpup_1"])
  })

  it.effect("createByMethod: one table; a declared method without an entry is a configuration error, an unknown one unavailable", () =>
    Effect.gen(function*() {
      const method = Provider.promptPayMethod({ providerMethod: "pp", minAmount: "1", maxAmount: "10", environments: ["test"] })
      assert.throws(() => ProviderKit.createByMethod("acme", [method], {}), /declares pp/)
      const create = ProviderKit.createByMethod("acme", [method], { pp: (r) => Effect.succeed({ _tag: "Processing", providerPaymentId: r.paymentIntentId }) })
      const request = { paymentIntentId: "dord_1", providerMethod: "pp" } as Provider.ProviderPaymentRequest
      assert.deepStrictEqual(yield* create(request), { _tag: "Processing", providerPaymentId: "dord_1" })
      assert.deepInclude(yield* Effect.flip(create({ ...request, providerMethod: "other" })), { _tag: "ProviderUnavailable", ambiguous: false })
    }))

  it("D13 accounts: the account's adapter is built from its decoded credentials; credentials that do not decode are refused without quoting them", () => {
    const built: Array<unknown> = []
    const support = ProviderKit.accounts(Schema.Struct({ key: Schema.String.pipe(Schema.minLength(4)) }), (credentials, account) => {
      built.push([credentials.key, account.environment])
      return { code: "acme" } as Provider.PaymentProvider
    })
    support.forAccount({ id: "acct_1", environment: "live", credentials: { key: "k_live" } })
    assert.deepStrictEqual(built, [["k_live", "live"]])
    assert.throws(() => support.forAccount({ id: "acct_2", environment: "live", credentials: { key: "sec" } }), /^(?!.*sec\b).*acct_2/)
  })

  it("D1 one list: no adapter, nor the simulator or core, writes a failure message of Tender's as a literal", () => {
    const root = resolve(import.meta.dirname, "../..")
    const messages = Object.values(ProviderKit.failureMessages)
    const repeated: Array<string> = []
    for (const pkg of ["core", "stripe", "adyen"]) {
      const src = join(root, pkg, "src")
      for (const file of readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
        if (file.endsWith("providerFailures.ts")) continue
        const text = readFileSync(join(src, file), "utf8")
        for (const m of messages) if (text.includes(`"${m}"`)) repeated.push(`${pkg}/src/${file}: ${m}`)
      }
    }
    assert.deepStrictEqual(repeated, [])
  })
})
