/**
 * Test fixtures: a seed with merchants for every scenario, and the core services on the
 * in-memory store. Shared by the core and http tests, and loaded by the http fuzzer's target
 * process too: nothing here imports Vitest.
 */
import { Effect, Layer, Logger, Option, Schema } from "effect"
import type { ApiResponse } from "../src/index.js"
import {
  Authentication,
  DeliveryClient,
  Event,
  Fx,
  HostedCheckout,
  Ids,
  Ledger,
  MemoryStorage,
  PaymentIntent,
  PayoutIntent,
  PayoutIntents,
  Provider,
  Seed,
  Simulator,
  Storage,
  Task,
  TopupIntent,
  TopupIntents,
  WebhookConfig,
  WebhookDelivery,
  WebhookTransport,
  Workers
} from "../src/index.js"

export const keys = {
  demoTest: { public: "pk_test_demoAAAA1111", secret: "sk_test_demoSECRET1111aaaa" },
  demoLive: { public: "pk_live_demoBBBB2222", secret: "sk_live_demoSECRET2222bbbb" },
  otherTest: { public: "pk_test_otherCCCC3333", secret: "sk_test_otherSECRET3333cccc" },
  hostedOnly: { public: "pk_test_hostedDDDD4444", secret: "sk_test_hostedSECRET4444dddd" },
  merchantOnly: { public: "pk_test_merchantEEEE5555", secret: "sk_test_merchantSECRET5555ee" },
  degraded: { public: "pk_test_degradedFFFF6666", secret: "sk_test_degradedSECRET6666ff" },
  revoked: { public: "pk_test_revokedGGGG7777", secret: "sk_test_revokedSECRET7777gggg" },
  unconfigured: { public: "pk_test_unconfHHHH8888", secret: "sk_test_unconfSECRET8888hhhh" }
} as const

const allRoutes = (prefix: string) => [
  { id: `${prefix}_pp`, method: "th_promptpay", provider: "simulator", environments: ["test" as const], priority: 1 },
  { id: `${prefix}_bt`, method: "th_bank_transfer", provider: "simulator", environments: ["test" as const], priority: 2 },
  { id: `${prefix}_ob`, method: "th_online_banking", provider: "simulator", environments: ["test" as const], priority: 3 }
]

export const seed: Seed.Seed = {
  merchants: [
    {
      id: "mch_demo",
      name: "Demo",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [
        { id: "key_demo_test", public_key: keys.demoTest.public, secret_key: keys.demoTest.secret },
        { id: "key_demo_live", public_key: keys.demoLive.public, secret_key: keys.demoLive.secret },
        { id: "key_revoked", public_key: keys.revoked.public, secret_key: keys.revoked.secret, revoked: true }
      ],
      routes: allRoutes("rt_demo")
    },
    {
      id: "mch_other",
      name: "Other",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [{ id: "key_other_test", public_key: keys.otherTest.public, secret_key: keys.otherTest.secret }],
      routes: allRoutes("rt_other")
    },
    {
      id: "mch_hosted_only",
      name: "Hosted only",
      allowed_checkout_modes: ["hosted"],
      api_keys: [{ id: "key_hosted_only", public_key: keys.hostedOnly.public, secret_key: keys.hostedOnly.secret }],
      routes: allRoutes("rt_hosted")
    },
    {
      id: "mch_merchant_only",
      name: "Merchant only",
      allowed_checkout_modes: ["merchant"],
      api_keys: [{ id: "key_merchant_only", public_key: keys.merchantOnly.public, secret_key: keys.merchantOnly.secret }],
      routes: allRoutes("rt_merchant")
    },
    {
      id: "mch_degraded",
      name: "Degraded",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [{ id: "key_degraded", public_key: keys.degraded.public, secret_key: keys.degraded.secret }],
      routes: [
        { id: "rt_degraded_pp", method: "th_promptpay", provider: "simulator", environments: ["test"], healthy: false },
        { id: "rt_degraded_bt", method: "th_bank_transfer", provider: "simulator", environments: ["test"] }
      ]
    },
    {
      id: "mch_unconfigured",
      name: "Only PromptPay configured",
      allowed_checkout_modes: ["hosted", "merchant"],
      api_keys: [{ id: "key_unconf", public_key: keys.unconfigured.public, secret_key: keys.unconfigured.secret }],
      routes: [{ id: "rt_unconf_pp", method: "th_promptpay", provider: "simulator", environments: ["test"] }]
    }
  ]
}

export const checkoutOptions = { baseUrl: "https://pay.example.test", secret: "test-checkout-secret" }

/** Core services on a fresh memory store; `providers` replaces the simulator. */
export const layer = (options: {
  readonly providers?: ReadonlyArray<Provider.PaymentProvider>
  readonly storage?: Layer.Layer<Storage.Storage>
  readonly ids?: Layer.Layer<Ids.IdGenerator>
  readonly transport?: Layer.Layer<WebhookTransport.WebhookTransport>
  readonly webhooks?: WebhookConfig.WebhookOptions
  readonly fxRates?: Layer.Layer<Fx.FxRates>
} = {}) =>
  Layer.mergeAll(
    options.fxRates ?? Fx.layerStatic(),
    Fx.layerStaticFees(),
    directory,
    Provider.layerRegistry(options.providers ?? [Simulator.make()]),
    options.ids ?? Ids.layer,
    HostedCheckout.layer(checkoutOptions),
    WebhookConfig.layerConfig({ ...options.webhooks, fallbackKey: checkoutOptions.secret }),
    WebhookDelivery.layerSender().pipe(Layer.provide(options.transport ?? DeliveryClient.layer())),
    // A storage of a test's own comes with an empty task queue of its own: such tests run no workers.
    // Its commits keep the ledger, as `Tender.layer` wires it (D12).
    Ledger.layerStorage.pipe(
      Layer.provideMerge(
        options.storage === undefined ? MemoryStorage.layer : Layer.merge(options.storage, Layer.sync(Task.Tasks, () => MemoryStorage.make().tasks))
      ),
      Layer.provide(directory)
    )
  )

/** The seed's merchants and route health, one instance per build (a layer is shared where it is used twice). */
const directory = Seed.layer(seed)

export type Services = Layer.Layer.Success<ReturnType<typeof layer>>

/**
 * A fresh in-memory store with some of its operations replaced, each built from the store
 * itself: the fault or race a test injects at one call, every other call as usual. Pass it as
 * `layer({ storage })`.
 */
export const storeWith = (override: (store: ReturnType<typeof MemoryStorage.make>) => Partial<Storage.Storage["Type"]>) => {
  const store = MemoryStorage.make()
  return Layer.succeed(Storage.Storage, { ...store, ...override(store) })
}

/**
 * The store (any adapter's, wrapping the `Storage` below it) as another task racing on a payment
 * intent leaves it: the intent's version moves on once, between a task's read and its commit,
 * so that commit fails `StaleVersion`. Each build races once.
 */
export const racingIntent = Layer.effect(
  Storage.Storage,
  Effect.map(Storage.Storage, (s): Storage.Storage["Type"] => {
    let armed = true
    return {
      ...s,
      commit: (writes) =>
        Effect.gen(function*() {
          const theirs = writes.find((w) => w._tag === "Update" && w.table === PaymentIntent.table)
          if (armed && theirs !== undefined && theirs._tag === "Update") {
            armed = false
            const current = Option.getOrThrow(yield* s.find(PaymentIntent.table, theirs.record.id))
            yield* s.commit([Storage.Write.update(PaymentIntent.table, { ...current, version: current.version + 1 }, current.version)])
          }
          return yield* s.commit(writes)
        })
    }
  })
)

/** Authenticate a key pair of the seed. */
export const login = (key: { readonly public: string; readonly secret: string }) =>
  Authentication.authenticate({ publicKey: key.public, secretKey: key.secret })

/** `key`'s principal with its merchant's routes replaced by `routes`: a routing table of the test's own. */
export const loginRouted = (key: { readonly public: string; readonly secret: string }, routes: Authentication.Principal["merchant"]["routes"]) =>
  Effect.map(login(key), (base) => ({ ...base, merchant: { ...base.merchant, routes } }))

/** `retrieve` as the demo merchant's test key pair: a GET of resource `id` under `keys.demoTest`. */
export const asDemo = <A, E, R>(retrieve: (principal: Authentication.Principal, id: string) => Effect.Effect<A, E, R>) => (id: string) =>
  Effect.flatMap(login(keys.demoTest), (p) => retrieve(p, id))

/** A key pair of the seed, and a request body before it is decoded. */
export type Key = { readonly public: string; readonly secret: string }
export type Body = Record<string, unknown>

/** The demo merchant's test environment, where `keys.demoTest` acts. */
export const scope = { merchantId: "mch_demo", environment: "test" } as const

export const decodeParams = Schema.decodeUnknown(PaymentIntent.CreateParams)

/** No log output: for the tests that provoke 5xx and other failures logged by design, so the test output stays clean. */
export const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

/** A response's JSON body, and the D1 error in it. */
export const json = (r: ApiResponse.ApiResponse) => JSON.parse(r.body)
export const errorOf = (r: ApiResponse.ApiResponse) => json(r).error as { code: string; param?: string; message: string; details?: Array<{ param: string }> }
/** A D1 refusal's status and error code, to compare whole against the ones a rule names. */
export const refusal = (r: ApiResponse.ApiResponse) => ({ status: r.status, code: errorOf(r).code })

/** The types of a demo resource's events, in order. */
export const events = (id: string) => Effect.map(Event.forResource(scope, id), (es) => es.map((e) => e.type))

/** Run every task due now, as a worker would. */
export const work = Workers.drain({ owner: "test" })

/**
 * D12: `amount` of `currency` credited to the balance of `key`'s merchant as a test balance is funded, a
 * `test_funding` top-up that the workers pay (`work`), so a payout can draw from it.
 */
export const fund = (key: Key, amount: string, currency = "THB") =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(
      Schema.decodeUnknown(TopupIntent.CreateParams)({
        destination_amount: amount,
        destination_currency: currency,
        source: { type: "test_funding" }
      })
    )
    const created = yield* TopupIntents.create({ principal, requestId: "req_fund", idempotencyKey: crypto.randomUUID() }, params)
    if (created.status !== 201) return yield* Effect.dieMessage(`funding failed: ${created.body}`)
    yield* work
  })

/**
 * D12: the demo merchant's 5000.00 THB payout to a KBANK account under `merchantReference`, on a
 * balance funded for it first (`fund`): the create's answer.
 */
export const fundedPayout = (merchantReference: string) =>
  Effect.gen(function*() {
    yield* fund(keys.demoTest, "500000")
    const principal = yield* login(keys.demoTest)
    const params = yield* Effect.orDie(
      Schema.decodeUnknown(PayoutIntent.CreateParams)({
        amount: "500000",
        currency: "THB",
        merchant_reference: merchantReference,
        destination: { type: "bank_account", bank: "KBANK", account_number: "0123456789", account_name: "Somchai Jaidee" }
      })
    )
    return yield* PayoutIntents.create({ principal, requestId: "req_p" }, params)
  })

/** A simulator whose create-payment waits for `release`; `called` resolves when it is entered. */
export const gated = () => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let signal!: () => void
  const called = new Promise<void>((resolve) => (signal = resolve))
  const sim = Simulator.make()
  const provider: Provider.PaymentProvider = {
    ...sim,
    createPayment: (req) => Effect.sync(signal).pipe(Effect.zipRight(Effect.promise(() => gate)), Effect.zipRight(sim.createPayment(req)))
  }
  return { provider, release, called }
}

/** A payment intent's fields on get and list, sorted: 2.1's, and D10's cancellation_reason and amount_refunded. */
export const paymentIntentFields = [
  "amount",
  "amount_refunded",
  "cancellation_reason",
  "checkout_mode",
  "country",
  "created_at",
  "currency",
  "environment",
  "failure_code",
  "failure_message",
  "id",
  "merchant_reference",
  "next_action",
  "object",
  "payment_method",
  "processing_reason",
  "receipt",
  "status",
  "updated_at"
]
/** A payment intent's fields on create: 2.1's less processing_reason and receipt. */
export const paymentIntentCreatedFields = paymentIntentFields.filter((f) => f !== "processing_reason" && f !== "receipt")
