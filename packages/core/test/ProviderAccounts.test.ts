/**
 * Provider accounts per merchant (D13) in core, on the in-memory store: two merchants each with
 * their own simulator account (each with its own notification secret), the vault, the notice
 * doors, rotation and reseal, and a search of every span and log line for the secrets.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Logger, LogLevel, Option, Tracer } from "effect"
import { randomBytes } from "node:crypto"
import { inspect } from "node:util"
import type { Authentication, Task } from "../src/index.js"
import {
  CredentialVault,
  Merchants,
  PaymentIntent,
  PaymentIntents,
  Provider,
  ProviderAccounts,
  ProviderNotification,
  ProviderNotifications,
  Seed,
  Simulator,
  Storage,
  Tender,
  Workers
} from "../src/index.js"
import { checkoutOptions, decodeParams, json } from "./fixtures.js"

const secretA = "sim_account_secret_ALPHA_0001"
const secretB = "sim_account_secret_BRAVO_0002"
const k1 = { id: "k1", key: randomBytes(32).toString("base64") }
const k2 = { id: "k2", key: randomBytes(32).toString("base64") }

const merchant = (id: string, account: string, secret: string) => ({
  id,
  name: id,
  allowed_checkout_modes: ["merchant" as const],
  api_keys: [],
  routes: [{ id: `rt_${id}`, method: "th_promptpay", provider: "simulator", provider_account: account }],
  provider_accounts: [{ id: account, provider: "simulator", environment: "test" as const, credentials: { notification_secret: secret } }]
})
const seed: Seed.Seed = { merchants: [merchant("mch_sa", "acct_sim_a", secretA), merchant("mch_sb", "acct_sim_b", secretB)] }

const providers = [Simulator.make()]
const layer = () => Tender.layerMemory({ seed, hostedCheckout: checkoutOptions, providers, providerAccountKeys: [k1] })
const registry = (keys: ReadonlyArray<CredentialVault.AccountKey>) => Provider.layerRegistry(providers, { accountKeys: keys })

const principal = (merchantId: string) =>
  Effect.map(Effect.flatMap(Merchants.Merchants, (m) => m.findMerchant(merchantId)), (found): Authentication.Principal => ({
    merchant: Option.getOrThrow(found),
    environment: "test",
    apiKeyId: `key_${merchantId}`
  }))

const pay = (merchantId: string) =>
  Effect.gen(function*() {
    const params = yield* Effect.orDie(
      decodeParams({
        amount: "150000",
        currency: "THB",
        country: "TH",
        checkout_mode: "merchant",
        payment_method: "th_promptpay",
        customer: { name: "Somchai", phone: "0812345678" }
      })
    )
    const r = yield* PaymentIntents.create({ principal: yield* principal(merchantId), requestId: "req_accounts" }, params)
    return r
  })

const stored = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, id)), Option.getOrThrow)

/** A simulator notice that `intentId` was paid, signed with `secret` at the TestClock's time 0. */
const paidNotice = (intent: PaymentIntent.PaymentIntentRecord, secret: string, eventId = `evt_${crypto.randomUUID()}`) => {
  const body = JSON.stringify({
    id: eventId,
    type: "payment.succeeded",
    data: { payment_intent: intent.id, provider_payment_id: intent.providerPaymentId, amount: intent.amount, currency: intent.currency }
  })
  return {
    eventId,
    request: { headers: { [Simulator.signatureHeader]: Simulator.signNotification({ body, secret, timestamp: 0 }) }, body: new TextEncoder().encode(body) }
  }
}

/** Run the apply task of the stored notice `eventId` of the simulator, and read the notice back. */
const applyNotice = (eventId: string) =>
  Effect.gen(function*() {
    const id = ProviderNotification.recordId("simulator", eventId)
    // The task gives its writes; the worker commits them with the task's completion.
    const outcome = yield* ProviderNotifications.run({ resourceId: id } as Task.TaskRecord)
    if (outcome._tag === "Done") yield* (yield* Storage.Storage).commit(outcome.writes)
    return Option.getOrThrow(yield* (yield* Storage.Storage).find(ProviderNotification.table, id))
  })

describe("provider accounts per merchant (D13)", () => {
  it("D13 credentials are sealed with AES-256-GCM naming the key id, bound to their account; the newest key seals and older keys open", () => {
    const old = CredentialVault.make([k1])
    const sealed = old.seal("mch_x/acct_1", { secret_key: "sk_test_sealme" })
    assert.match(sealed, /^tv1\.k1\./)
    assert.notInclude(sealed, "sk_test_sealme")
    assert.deepStrictEqual(old.open("mch_x/acct_1", sealed), { _tag: "Opened", credentials: { secret_key: "sk_test_sealme" } })
    // Copied onto another account, it does not open.
    assert.strictEqual(old.open("mch_y/acct_1", sealed)._tag, "Unreadable")
    const rotated = CredentialVault.make([k2, k1])
    assert.deepStrictEqual(rotated.open("mch_x/acct_1", sealed), { _tag: "Opened", credentials: { secret_key: "sk_test_sealme" } })
    assert.isFalse(rotated.isCurrent(sealed))
    assert.match(rotated.seal("mch_x/acct_1", { a: "b" }), /^tv1\.k2\./)
    assert.strictEqual(CredentialVault.make([k2]).open("mch_x/acct_1", sealed)._tag, "Unreadable")
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA")
    assert.strictEqual(old.open("mch_x/acct_1", tampered)._tag, "Unreadable")
    assert.throws(() => CredentialVault.make([{ id: "short", key: "c2hvcnQ=" }]), /32 random bytes/)
    assert.throws(() => CredentialVault.make([k1, { ...k2, id: "k1" }]), /two keys share/)
  })

  it.effect("D13 an account's adapter is built once and reused, and built again only when its stored credentials change", () =>
    Effect.gen(function*() {
      const built: Array<string> = []
      const sim = Simulator.make()
      const counting: Provider.PaymentProvider = {
        ...sim,
        accounts: { ...sim.accounts!, forAccount: (account) => (built.push(account.id), sim.accounts!.forAccount(account)) }
      }
      const registry = yield* Provider.ProviderRegistry.pipe(Effect.provide(Provider.layerRegistry([counting], { accountKeys: [k1] })))
      const account = {
        id: "acct_c",
        provider: "simulator",
        environment: "test" as const,
        credentials: registry.vault.seal("mch_c/acct_c", { notification_secret: secretA })
      }
      const first = registry.forAccount("mch_c", account)
      assert.strictEqual(first._tag, "Ready")
      assert.strictEqual(registry.forAccount("mch_c", account), first)
      assert.deepStrictEqual(built, ["acct_c"])
      const changed = { ...account, credentials: registry.vault.seal("mch_c/acct_c", { notification_secret: secretB }) }
      assert.notStrictEqual(registry.forAccount("mch_c", changed), first)
      assert.deepStrictEqual(built, ["acct_c", "acct_c"])
      // The same account id under another merchant is another account: its ciphertext does not open there.
      assert.strictEqual(registry.forAccount("mch_d", account)._tag, "Unusable")
    }))

  it.effect("D13 the seed's accounts are stored sealed under the host key, and routes name them", () =>
    Effect.gen(function*() {
      const found = Option.getOrThrow(yield* (yield* Merchants.Merchants).findMerchant("mch_sa"))
      assert.deepStrictEqual(found.routes[0]?.providerAccount, "acct_sim_a")
      const account = found.providerAccounts![0]!
      assert.match(account.credentials, /^tv1\.k1\./)
      assert.notInclude(JSON.stringify(found), secretA)
      const owners = yield* (yield* Merchants.Merchants).findProviderAccount("acct_sim_b")
      assert.deepStrictEqual(owners.map((o) => o.merchant.id), ["mch_sb"])
    }).pipe(Effect.provide(layer())))

  it.effect("D13 a notice verified at one account's door moves only that account's objects; another account's secret is refused at its door", () =>
    Effect.gen(function*() {
      const created = json(yield* pay("mch_sb"))
      const intent = yield* stored(created.id)
      assert.strictEqual(intent.providerAccount, "acct_sim_b")
      // Signed with A's secret, at A's door: verified, stored as A's, and it cannot move B's payment.
      const cross = paidNotice(intent, secretA)
      yield* ProviderNotifications.receive("simulator", cross.request, "acct_sim_a")
      const record = yield* applyNotice(cross.eventId)
      assert.deepStrictEqual([record.status, record.providerAccount, record.merchantId], ["unmatched", "acct_sim_a", "mch_sa"])
      assert.strictEqual((yield* stored(intent.id)).status, "requires_action")
      // Signed with A's secret, at B's door: not verified, nothing stored.
      const wrongDoor = paidNotice(intent, secretA)
      const refused = yield* Effect.either(ProviderNotifications.receive("simulator", wrongDoor.request, "acct_sim_b"))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "NotificationUnverified")
      assert.isTrue(
        Option.isNone(yield* (yield* Storage.Storage).find(ProviderNotification.table, ProviderNotification.recordId("simulator", wrongDoor.eventId)))
      )
      // Nor does the deployment's door move an account's payment.
      const deployment = paidNotice(intent, Simulator.defaultNotificationSecret)
      yield* ProviderNotifications.receive("simulator", deployment.request)
      assert.strictEqual((yield* applyNotice(deployment.eventId)).status, "unmatched")
      // B's own secret at B's door moves it.
      const own = paidNotice(intent, secretB)
      yield* ProviderNotifications.receive("simulator", own.request, "acct_sim_b")
      assert.strictEqual((yield* applyNotice(own.eventId)).status, "applied")
      assert.strictEqual((yield* stored(intent.id)).status, "succeeded")
      // A door no account stands behind, or an account of another provider, is unknown.
      const unknown = yield* Effect.either(ProviderNotifications.receive("simulator", own.request, "acct_nobody"))
      assert.isTrue(Either.isLeft(unknown) && unknown.left._tag === "UnknownNotificationProvider")
    }).pipe(Effect.provide(layer())))

  it.effect("D13 rotating the host key keeps every account working; reseal moves the old ciphertexts, after which the old key is not needed", () =>
    Effect.gen(function*() {
      const rotated = registry([k2, k1])
      assert.strictEqual((yield* pay("mch_sa").pipe(Effect.provide(rotated))).status, 201)
      const done = yield* ProviderAccounts.reseal(1).pipe(Effect.provide(rotated))
      assert.deepStrictEqual(done, { moved: 2, current: 0, unreadable: [] })
      assert.deepStrictEqual(yield* ProviderAccounts.reseal().pipe(Effect.provide(rotated)), { moved: 0, current: 2, unreadable: [] })
      for (const id of ["mch_sa", "mch_sb"]) {
        assert.strictEqual((yield* pay(id).pipe(Effect.provide(registry([k2])))).status, 201)
        // Only the retired key: the account cannot be used, and nothing reaches a provider.
        const without = yield* pay(id).pipe(Effect.provide(registry([k1])))
        assert.strictEqual(json(without).error.code, "payment_configuration_unavailable")
      }
    }).pipe(Effect.provide(layer())))

  it.effect("D13 bad credentials are refused naming the field, never the value; without a key nothing is sealed", () =>
    Effect.gen(function*() {
      const bad = { id: "acct_bad", provider: "simulator", environment: "test" as const, credentials: { notification_secret: "SHORTSECRET" } }
      const refused = yield* Effect.flip(ProviderAccounts.seal("mch_sa", [bad]))
      assert.strictEqual(refused.param, "provider_accounts.0.credentials.notification_secret")
      assert.notInclude(JSON.stringify(refused), "SHORTSECRET")
      const noKey = yield* Effect.flip(ProviderAccounts.seal("mch_sa", [bad]).pipe(Effect.provide(registry([]))))
      assert.strictEqual(noKey.param, "provider_accounts")
      const applied = yield* Effect.flip(Seed.apply(seed).pipe(Effect.provide(registry([]))))
      assert.strictEqual(applied._tag, "InvalidSeed")
    }).pipe(Effect.provide(layer())))

  it.effect("D13 no secret appears in any span or log line of sealing, routing, paying, notices and tasks", () => {
    const seen: Array<string> = []
    const tracer = Tracer.make({
      span: (name, parent, context, links, startTime, kind) => {
        const span = Effect.runSync(Effect.tracer).span(name, parent, context, links, startTime, kind)
        seen.push(`span ${name}`)
        const attribute = span.attribute.bind(span)
        const event = span.event.bind(span)
        const end = span.end.bind(span)
        return Object.assign(span, {
          attribute: (key: string, value: unknown) => {
            seen.push(`${name} ${key}=${inspect(value, { depth: 8 })}`)
            attribute(key, value)
          },
          event: (n: string, t: bigint, attributes?: Record<string, unknown>) => {
            seen.push(`${name} event ${n} ${inspect(attributes, { depth: 8 })}`)
            event(n, t, attributes)
          },
          end: (t: bigint, exit: Parameters<typeof span.end>[1]) => {
            seen.push(`${name} end ${inspect(exit, { depth: 8 })}`)
            end(t, exit)
          }
        })
      },
      context: (f) => f()
    })
    const logger = Logger.make(({ annotations, cause, message }) => void seen.push(`log ${inspect({ message, annotations, cause }, { depth: 8 })}`))
    return Effect.gen(function*() {
      const a = yield* stored(json(yield* pay("mch_sa")).id)
      const b = yield* stored(json(yield* pay("mch_sb")).id)
      for (const [intent, secret, door] of [[a, secretA, "acct_sim_a"], [b, secretA, "acct_sim_a"], [b, secretA, "acct_sim_b"]] as const) {
        const notice = paidNotice(intent, secret)
        yield* Effect.either(ProviderNotifications.receive("simulator", notice.request, door))
      }
      yield* Workers.drain({ owner: "test" })
      yield* Effect.either(
        ProviderAccounts.seal("mch_sa", [{ id: "acct_x", provider: "simulator", environment: "test", credentials: { notification_secret: "tooShortSecretX" } }])
      )
      assert.strictEqual((yield* stored(a.id)).status, "succeeded")
      assert.isAbove(seen.length, 10)
      assert.isTrue(seen.some((line) => line === "span tender.provider.notification"), "the tracer saw the notification spans")
      for (const secret of [secretA, secretB, k1.key, "tooShortSecretX"]) {
        const found = seen.find((line) => line.includes(secret))
        assert.isUndefined(found, `a span or log line holds a secret: ${found?.slice(0, 300)}`)
      }
    }).pipe(
      Effect.provide(layer()),
      Effect.withTracer(tracer),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
  })
})
