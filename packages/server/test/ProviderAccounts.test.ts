/**
 * Provider accounts per merchant (D13) through `createTender`, on memory and on PostgreSQL: two
 * merchants each with their own Stripe account (two Stripe stand-ins, two keys), the real Stripe
 * adapter building one adapter per account, each account's notification door, the account fixed
 * on each object, the breaker per account, and no secret in any answer, log line or stored row.
 */
import type { Provider } from "@tender/core"
import { freePort, promptpay, testDatabaseUrl, until } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { stripeIntentOf } from "@tender/repo-test-support/stripe-walks"
import { StripeProvider } from "@tender/stripe"
import * as StripeStandIn from "@tender/stripe/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { inspect } from "node:util"
import Stripe from "stripe"
import { afterAll, afterEach, assert, beforeAll, describe, it } from "vitest"
import { main } from "../src/Cli.js"
import { createTender, type SeedInput, type TenderInstance, type TenderOptions } from "../src/index.js"
import { rejection } from "./rejection.js"

const keyA = "sk_test_accountAlphaKey0001"
const whsecA = "whsec_accountAlphaSecret01"
const keyB = "sk_test_accountBravoKey0002"
const whsecB = "whsec_accountBravoSecret02"
const keyC = "sk_test_accountCharlieKey03"
const whsecC = "whsec_accountCharlieSecret3"
const hostKey1 = { id: "k1", key: randomBytes(32).toString("base64") }
const hostKey2 = { id: "k2", key: randomBytes(32).toString("base64") }
/** Every secret of the file: none may appear in an answer, a log line or a stored row. */
const secrets = [keyA, whsecA, keyB, whsecB, keyC, whsecC, hostKey1.key, hostKey2.key]

const scopeA = { merchant: "mch_alpha", environment: "test" } as const
const scopeB = { merchant: "mch_bravo", environment: "test" } as const

const stripeAccount = (id: string, secretKey: string, webhookSecret: string) => ({
  id,
  provider: "stripe",
  environment: "test" as const,
  credentials: { secret_key: secretKey, webhook_secret: webhookSecret }
})
const alphaAccount = stripeAccount("acct_alpha", keyA, whsecA)
const bravoAccount = stripeAccount("acct_bravo", keyB, whsecB)
const route = (id: string, account: string) => ({ id, method: "th_promptpay", provider: "stripe", provider_account: account })
/** A merchant's settings: merchant-mode checkout, one PromptPay route `routeId` on `account`, and the accounts it holds. */
const routedTo = (name: string, routeId: string, account: string, accounts: ReadonlyArray<ReturnType<typeof stripeAccount>>) => ({
  name,
  allowed_checkout_modes: ["merchant" as const],
  routes: [route(routeId, account)],
  provider_accounts: [...accounts]
})

/** Merchant alpha comes from the seed; bravo is onboarded through `merchants.create`. */
const seed: SeedInput = {
  merchants: [{
    id: "mch_alpha",
    name: "Alpha",
    allowed_checkout_modes: ["merchant"],
    api_keys: [],
    routes: [route("rt_alpha_pp", "acct_alpha")],
    provider_accounts: [alphaAccount]
  }]
}

/**
 * The real Stripe adapter, installed with no key of the deployment's own; each account's adapter
 * is the adapter's own `forAccount`, on the stand-in that plays that account's Stripe (A for
 * alpha's key, B for every other).
 */
const installed = (a: StripeStandIn.StripeStandIn, b: StripeStandIn.StripeStandIn): Provider.PaymentProvider => {
  const on = (url: string) => StripeProvider.stripe({ secretKey: [], webhookSecret: [], apiBase: url, maxNetworkRetries: 0 })
  const onA = on(a.url)
  const onB = on(b.url)
  return {
    ...onA,
    accounts: {
      credentials: onA.accounts!.credentials,
      forAccount: (account) => (account.credentials["secret_key"] === keyA ? onA : onB).accounts!.forAccount(account)
    }
  }
}

const storages = [
  { name: "memory", postgres: false },
  { name: "PostgreSQL", postgres: true }
] as const

const { pool, fresh } = prefixedPool(4)

for (const storage of storages) {
  describe(`provider accounts per merchant on ${storage.name}`, () => {
    let a: StripeStandIn.StripeStandIn
    let b: StripeStandIn.StripeStandIn
    let tender: TenderInstance
    let server: Server
    let base = ""
    let tablePrefix = ""
    const lines: Array<string> = []
    const answers: Array<string> = []
    const logger = Object.fromEntries(
      ["info", "warn", "error", "debug"].map((
        level
      ) => [level, (fields: unknown, message: string) => void lines.push(`${level} ${message} ${inspect(fields, { depth: 8 })}`)])
    )
    const options = (keys: ReadonlyArray<{ id: string; key: string }>): TenderOptions => ({
      publicUrl: base,
      checkoutSecret: "test-secret-accounts",
      storage: storage.postgres ? { postgres: pool, tablePrefix } : { memory: true },
      merchants: seed,
      providers: [installed(a, b)],
      simulator: false,
      providerAccountKeys: keys,
      logger: logger as never,
      routeHealth: { failureThreshold: 2, cooldownMillis: 3_600_000 },
      workers: { pollMillis: 50 }
    })
    /** (Re)start Tender on the same store, listening where the stand-ins send. */
    const start = async (keys: ReadonlyArray<{ id: string; key: string }>) => {
      tender = await createTender(options(keys))
      server = createServer(tender.handler)
      await new Promise<void>((ok) => server.listen(Number(new URL(base).port), "127.0.0.1", ok))
    }
    const stop = async () => {
      await new Promise<void>((ok) => server.close(() => ok()))
      await tender.close()
    }
    const kept = <A>(answer: A): A => {
      answers.push(JSON.stringify(answer))
      return answer
    }
    const door = (account: string) => `${base}/provider_notifications/stripe/${account}`
    const post = async (url: string, payload: string, signature: string) => {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body: payload })
      return { status: response.status, body: kept(await response.text()) }
    }

    beforeAll(async () => {
      a = await StripeStandIn.start()
      b = await StripeStandIn.start()
      base = `http://127.0.0.1:${await freePort()}/payments`
      tablePrefix = storage.postgres ? fresh() : ""
      await start([hostKey1])
      a.addEndpoint({ url: door("acct_alpha"), secret: whsecA })
      b.addEndpoint({ url: door("acct_bravo"), secret: whsecB })
      kept(await tender.merchants.create({ id: "mch_bravo", ...routedTo("Bravo", "rt_bravo_pp", "acct_bravo", [bravoAccount]) }))
    }, 60_000)
    afterEach(() => {
      for (const standIn of [a, b]) {
        const refusals = standIn.refusals.splice(0)
        assert.deepStrictEqual(refusals, [], formatRefusals(refusals))
      }
    })
    afterAll(async () => {
      await stop()
      await a?.close()
      await b?.close()
    })

    it(
      "D13 two merchants with their own Stripe accounts each reach only their own, and a refund goes to the account that took the payment whatever routes say later",
      async () => {
        const intentA = kept(await tender.paymentIntents.create(promptpay, scopeA))
        const intentB = kept(await tender.paymentIntents.create(promptpay, scopeB))
        assert.strictEqual(intentA.status, "requires_action")
        const stripeA = stripeIntentOf(a, intentA.id)
        const stripeB = stripeIntentOf(b, intentB.id)
        assert.isUndefined([...a.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === intentB.id))
        assert.isUndefined([...b.paymentIntents.values()].find((pi) => (pi["metadata"] as Record<string, string>)["tender_payment_intent"] === intentA.id))
        // Each stand-in heard only its own account's key.
        assert.deepStrictEqual([...new Set(a.requests.map((r) => r.headers["authorization"]))], [`Bearer ${keyA}`])
        assert.deepStrictEqual([...new Set(b.requests.map((r) => r.headers["authorization"]))], [`Bearer ${keyB}`])

        const [delivery] = await a.pay(stripeA["id"] as string)
        assert.strictEqual(delivery!.status, 200)
        await until(() => tender.paymentIntents.retrieve(intentA.id, scopeA), (pi) => pi.status === "succeeded")
        assert.strictEqual((await tender.paymentIntents.retrieve(intentB.id, scopeB)).status, "requires_action")

        // Alpha's route now names another account (on stand-in B): the refund still goes to A, which took the payment.
        kept(
          await tender.merchants.update(
            "mch_alpha",
            routedTo("Alpha", "rt_alpha_pp", "acct_alpha_new", [alphaAccount, stripeAccount("acct_alpha_new", keyC, whsecC)])
          )
        )
        const refund = kept(await tender.refunds.create({ payment_intent: intentA.id, amount: "50000" }, scopeA))
        await until(() => [...a.refunds.values()].find((r) => (r["metadata"] as Record<string, string>)["tender_refund"] === refund.id), (r) => r !== undefined)
        assert.isUndefined([...b.refunds.values()].find((r) => (r["metadata"] as Record<string, string>)["tender_refund"] === refund.id))
        assert.strictEqual(stripeB["status"], "requires_action")
        if (storage.postgres) {
          // D12 reads the account off the objects.
          const intents = await pool.query(`SELECT id, provider_account FROM "${tablePrefix}payment_intents" ORDER BY id`)
          assert.deepStrictEqual(Object.fromEntries(intents.rows.map((r) => [r.id, r.provider_account])), {
            [intentA.id]: "acct_alpha",
            [intentB.id]: "acct_bravo"
          })
          const refunds = await pool.query(`SELECT provider_account FROM "${tablePrefix}refunds" WHERE id = $1`, [refund.id])
          assert.strictEqual(refunds.rows[0].provider_account, "acct_alpha")
        }
        // New payments of alpha take its route's new account.
        const later = kept(await tender.paymentIntents.create(promptpay, scopeA))
        assert.isDefined(stripeIntentOf(b, later.id))
      },
      60_000
    )

    it("D13 a notification signed with one account's secret posted to another account's door is 400 signature_invalid and changes nothing", async () => {
      const intentB = kept(await tender.paymentIntents.create(promptpay, scopeB))
      const stripeB = stripeIntentOf(b, intentB.id)
      const event = {
        id: `evt_cross_${intentB.id}`,
        object: "event",
        api_version: "2023-08-16",
        created: 1_700_000_000,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: "payment_intent.succeeded",
        data: { object: { ...stripeB, status: "succeeded", amount_received: stripeB["amount"] } }
      }
      const payload = JSON.stringify(event)
      const signedByA = new Stripe("sk_test_signing_only").webhooks.generateTestHeaderString({ payload, secret: whsecA })
      const refused = await post(door("acct_bravo"), payload, signedByA)
      assert.strictEqual(refused.status, 400)
      assert.strictEqual(JSON.parse(refused.body).error.code, "signature_invalid")
      // The same notice at the door whose secret signed it is verified, and still cannot move bravo's payment.
      const atA = await post(door("acct_alpha"), payload, signedByA)
      assert.strictEqual(atA.status, 200)
      if (storage.postgres) {
        const row = await until(
          async () =>
            (await pool.query(`SELECT status, provider_account, detail FROM "${tablePrefix}provider_notifications" WHERE event_id = $1`, [event.id])).rows[0],
          (r) => r !== undefined && r.status !== "received"
        )
        assert.deepStrictEqual({ status: row.status, account: row.provider_account }, { status: "unmatched", account: "acct_alpha" })
      }
      assert.strictEqual((await tender.paymentIntents.retrieve(intentB.id, scopeB)).status, "requires_action")
      // A door no account stands behind is 404.
      assert.strictEqual((await post(door("acct_nobody"), payload, signedByA)).status, 404)
    }, 60_000)

    it("D13 bad credentials are 400 validation_failed naming the field, never echoing the secret", async () => {
      const wrongEnvironment = "sk_live_accountAlphaLiveKey9"
      const malformed = "not-a-stripe-key-but-SECRET-text"
      const bad = async (credentials: Record<string, string>) =>
        kept(
          await rejection(tender.merchants.create({
            id: `mch_bad_${Math.random().toString(36).slice(2, 8)}`,
            name: "Bad",
            allowed_checkout_modes: ["merchant"],
            routes: [],
            provider_accounts: [{ id: `acct_bad_${Math.random().toString(36).slice(2, 8)}`, provider: "stripe", environment: "test", credentials }]
          }))
        )
      for (
        const [credentials, field, secret] of [
          [{ secret_key: wrongEnvironment, webhook_secret: whsecA }, "secret_key", wrongEnvironment],
          [{ secret_key: malformed, webhook_secret: whsecA }, "secret_key", malformed],
          [{ secret_key: keyA }, "webhook_secret", keyA],
          [{ secret_key: keyA, webhook_secret: "whsec_shortish1", extra: "EXTRA-SECRET-VALUE" }, "extra", "EXTRA-SECRET-VALUE"]
        ] as const
      ) {
        const error = await bad(credentials)
        assert.strictEqual(error.code, "validation_failed")
        assert.strictEqual(error.status, 400)
        assert.strictEqual(error.param, `provider_accounts.0.credentials.${field}`, error.message)
        assert.notInclude(JSON.stringify({ ...error, message: error.message }), secret)
      }
    })

    it("D13 one merchant's account failing does not mark another merchant's account down", async () => {
      // Both merchants name their route alike: what the breaker counts is the account, not the route's name.
      kept(await tender.merchants.update("mch_alpha", routedTo("Alpha", "rt_shop_pp", "acct_alpha", [alphaAccount])))
      kept(await tender.merchants.update("mch_bravo", routedTo("Bravo", "rt_shop_pp", "acct_bravo", [bravoAccount])))
      const calls = () => a.requests.length + a.faulted.length
      a.outage({ _tag: "Status", status: 500, body: { error: { type: "api_error", message: "outage" } } })
      try {
        for (let i = 0; i < 2; i++) assert.strictEqual((await rejection(tender.paymentIntents.create(promptpay, scopeA))).code, "routing_unavailable")
        const before = calls()
        assert.isAbove(before, 0)
        // Alpha's account is now open: its route is skipped without a call.
        assert.strictEqual((await rejection(tender.paymentIntents.create(promptpay, scopeA))).code, "routing_unavailable")
        assert.strictEqual(calls(), before)
        // Bravo's account, at the same provider, is not.
        assert.strictEqual(kept(await tender.paymentIntents.create(promptpay, scopeB)).status, "requires_action")
      } finally {
        a.outage(null)
      }
    }, 60_000)

    if (storage.postgres) {
      it(
        "D13 rotating the host key keeps every account working: old ciphertexts open under the old key, tender accounts reseal moves them, and the old key can then go",
        async () => {
          const sealed = async () =>
            (await pool.query(`SELECT id, provider_accounts::text AS accounts FROM "${tablePrefix}merchants" ORDER BY id`)).rows.map((r) =>
              `${r.id} ${r.accounts}`
            ).join("\n")
          assert.match(await sealed(), /mch_bravo .*"tv1\.k1\./)
          await stop()
          // k2 first: it seals from now on; k1 still opens bravo's (written through the API under k1).
          await start([hostKey2, hostKey1])
          assert.strictEqual(kept(await tender.paymentIntents.create(promptpay, scopeB)).status, "requires_action")
          const out: Array<string> = []
          const env = { TENDER_PROVIDER_ACCOUNT_KEYS: `${hostKey2.id}:${hostKey2.key},${hostKey1.id}:${hostKey1.key}` }
          const code = await main(["accounts", "reseal", "--database-url", testDatabaseUrl, "--table-prefix", tablePrefix], {
            stdout: (t) => void out.push(t),
            stderr: (t) => void out.push(t),
            env
          })
          assert.strictEqual(code, 0, out.join(""))
          answers.push(out.join(""))
          assert.notMatch(await sealed(), /tv1\.k1\./)
          await stop()
          await start([hostKey2])
          assert.strictEqual(kept(await tender.paymentIntents.create(promptpay, scopeA)).status, "requires_action")
          assert.strictEqual(kept(await tender.paymentIntents.create(promptpay, scopeB)).status, "requires_action")
          // The account's door verifies with the resealed secret.
          const intent = kept(await tender.paymentIntents.create(promptpay, scopeB))
          await b.pay(stripeIntentOf(b, intent.id)["id"] as string)
          await until(() => tender.paymentIntents.retrieve(intent.id, scopeB), (pi) => pi.status === "succeeded")
        },
        60_000
      )
    }

    it("D13 no secret appears in any answer, log line or stored row", async () => {
      answers.push(JSON.stringify(kept(await tender.merchants.retrieve("mch_alpha"))))
      kept(await tender.merchants.retrieve("mch_bravo"))
      assert.deepStrictEqual((await tender.merchants.retrieve("mch_bravo")).provider_accounts, [{ id: "acct_bravo", provider: "stripe", environment: "test" }])
      const stored = storage.postgres
        ? (await pool.query(`SELECT provider_accounts::text AS a FROM "${tablePrefix}merchants"`)).rows.map((r) => r.a as string)
        : []
      assert.isAbove(lines.length + answers.length, 10)
      for (const secret of secrets) {
        for (const [what, texts] of [["answer", answers], ["log line", lines], ["stored row", stored]] as const) {
          const found = texts.find((t) => t.includes(secret))
          assert.isUndefined(found, `a ${what} holds a secret: ${found?.slice(0, 200)}`)
        }
      }
    })
  })
}

describe("provider account keys", () => {
  it("D13 without a host key, a seed holding credentials is refused at start, and merchants.create with credentials is 400", async () => {
    const base = { publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret-accounts", logger: { info() {}, warn() {}, error() {} } }
    const stand = await StripeStandIn.start()
    try {
      const providers = [installed(stand, stand)]
      const refused = await rejection(createTender({ ...base, providers, merchants: seed }))
      assert.strictEqual(refused.code, "validation_failed")
      assert.match(refused.message, /provider_accounts\.0 holds credentials, and no providerAccountKeys/)
      const tender = await createTender({ ...base, providers })
      try {
        const error = await rejection(
          tender.merchants.create({ id: "mch_nokey", name: "No key", allowed_checkout_modes: ["merchant"], routes: [], provider_accounts: [alphaAccount] })
        )
        assert.deepStrictEqual([error.status, error.code, error.param], [400, "validation_failed", "provider_accounts"])
        assert.notInclude(error.message, keyA)
      } finally {
        await tender.close()
      }
      const badKey = await rejection(createTender({ ...base, providers, providerAccountKeys: [{ id: "k1", key: "dG9vIHNob3J0" }] }))
      assert.strictEqual(badKey.param, "providerAccountKeys")
      assert.notInclude(badKey.message, "dG9vIHNob3J0")
    } finally {
      await stand.close()
    }
  })
})
