/**
 * The Tender the provider contract runs against: core's services on the in-memory store with
 * the adapter as its only provider, one merchant routed to it in both environments, workers
 * drained by the cases, and the notification door on a real HTTP port. The adapter is installed
 * behind a pass-through recorder, so a case can tell whether Tender asked it at all.
 */
import type { ProviderNotification as PN } from "@tender/core"
import {
  Authentication,
  Event,
  Ids,
  PaymentIntent,
  PaymentIntentCancel,
  PaymentIntents,
  Provider as P,
  ProviderNotification,
  Refund,
  Refunds,
  Storage,
  Task,
  Tender,
  Workers
} from "@tender/core"
import { Clock, Effect, Layer, Logger, ManagedRuntime, Option, Schema } from "effect"
import { type Door, openDoor, receive } from "./door.js"
import type { Driver, Harness, Outcome, Payment, Subject } from "./models.js"

type Environment = "test" | "live"

const merchantId = "mch_provider_contract"
const keys = {
  test: { publicKey: "pk_test_contract0001", secretKey: "sk_test_contractSecret000001" },
  live: { publicKey: "pk_live_contract0001", secretKey: "sk_live_contractSecret000001" }
} as const

/**
 * The adapter as installed, with the calls Tender made to it. Every call goes to the adapter as
 * a method call, so an adapter written as a class keeps its `this`.
 */
const recorded = (provider: P.PaymentProvider) => {
  const creates: Array<P.ProviderPaymentRequest> = []
  const refunds: Array<P.ProviderRefundRequest> = []
  /** How often Tender called each function after create (the capability cases count them). */
  const calls = { confirmPayment: 0, getPaymentStatus: 0, submitReceipt: 0, cancelPayment: 0 }
  const counted = <A extends Array<any>, B>(name: keyof typeof calls, fn: ((...args: A) => B) | undefined) =>
    fn === undefined ? undefined : (...args: A): B => (calls[name]++, fn.apply(provider, args))
  const installed: P.PaymentProvider = {
    code: provider.code,
    methods: provider.methods,
    createPayment: (request) => Effect.suspend(() => (creates.push(request), provider.createPayment(request))),
    confirmPayment: counted("confirmPayment", provider.confirmPayment),
    getPaymentStatus: counted("getPaymentStatus", provider.getPaymentStatus),
    submitReceipt: counted("submitReceipt", provider.submitReceipt),
    sendPayout: provider.sendPayout === undefined ? undefined : (payout) => provider.sendPayout!(payout),
    cancelPayment: counted("cancelPayment", provider.cancelPayment),
    refund: provider.refund === undefined ? undefined : (request) => Effect.suspend(() => (refunds.push(request), provider.refund!(request))),
    topups: provider.topups,
    parseNotification: provider.parseNotification === undefined ? undefined : (request) => provider.parseNotification!(request)
  }
  return { installed, creates, refunds, calls }
}

const seedOf = (code: string, method: string) => ({
  merchants: [{
    id: merchantId,
    name: "Provider contract",
    allowed_checkout_modes: ["hosted" as const, "merchant" as const],
    api_keys: [
      { id: "key_contract_test", public_key: keys.test.publicKey, secret_key: keys.test.secretKey },
      { id: "key_contract_live", public_key: keys.live.publicKey, secret_key: keys.live.secretKey }
    ],
    routes: [{ id: "rt_contract", method, provider: code, environments: ["test" as const, "live" as const] }]
  }]
})

const services = (code: string, method: string, provider: P.PaymentProvider) =>
  Tender.layerMemory({
    seed: seedOf(code, method),
    hostedCheckout: { baseUrl: "https://pay.example.test", secret: "provider-contract-checkout-secret" },
    providers: [provider]
  }).pipe(
    // Tender logs what a provider got wrong by design; the cases read outcomes, not logs.
    Layer.provideMerge(Logger.replace(Logger.defaultLogger, Logger.none))
  )

/** Values of the Thai family's fields; a subject's `payer` gives those of another family. */
const thaiSamples: Readonly<Record<string, string>> = {
  customer_name: "Somchai Jaidee",
  customer_phone: "+66812345678",
  account_name: "Somchai Jaidee",
  account_number: "0123456789",
  name_th: "สมชาย ใจดี"
}

/** The payer fields a create must carry for the method (2.2), as discovery names them, at their create-request paths. */
const payerOf = (method: P.ProviderMethod, samples: Readonly<Record<string, string>>) => {
  const options: Record<string, string> = {}
  const customer: Record<string, string> = { name: samples["customer_name"] ?? thaiSamples["customer_name"]! }
  for (const field of Object.keys(method.payer)) {
    const value = field === "bank" ? samples["bank"] ?? method.banks[0]?.code : samples[field] ?? thaiSamples[field]
    if (value === undefined) continue
    if (field === "customer_name" || field === "customer_phone") customer[field === "customer_name" ? "name" : "phone"] = value
    else options[field] = value
  }
  return { customer, ...(Object.keys(options).length === 0 ? {} : { payment_method_options: options }) }
}

/** An amount the method takes: 1,500.00 when in range, else its minimum. */
const defaultAmount = (method: P.ProviderMethod) => P.amountInRange(method, "150000") ? "150000" : method.minAmount

let requests = 0

/** Everything a case uses. */
export const start = async (setup: (harness: Harness) => Promise<Subject>) => {
  // Assigned once the subject is checked, below; `run` reads it before that to refuse early calls.
  // eslint-disable-next-line prefer-const
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof services>>, never> | undefined
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof services>>>): Promise<A> => {
    if (runtime === undefined) return Promise.reject(new Error("Tender is not started yet"))
    return runtime.runPromise(effect)
  }
  // The door receives for the adapter setup gives.
  let code = ""
  const door: Door = await openDoor((request) => run(receive(code, request)))
  let subject: Subject
  try {
    subject = await setup({ notificationUrl: door.url })
  } catch (error) {
    await door.close()
    throw error
  }
  code = subject.provider.code
  // Nothing setup started outlives a start that fails after it.
  const abandon = async (error: unknown): Promise<never> => {
    await door.close()
    await subject.close?.()
    throw error
  }
  const driver: Driver = subject.driver
  const method = subject.method === undefined
    ? subject.provider.methods.find((m) => m.checkoutModes.includes("merchant"))
    : subject.provider.methods.find((m) => m.method === subject.method)
  if (method === undefined) return abandon(new Error(`${code} serves no ${subject.method ?? "merchant-mode"} method to run the contract with`))
  const declared: ReadonlyArray<Environment> = [...new Set(subject.provider.methods.flatMap((m) => m.environments))]
  const served: ReadonlyArray<Environment> = subject.environments ?? declared
  const environment: Environment = method.environments[0] ?? "test"
  const recorder = recorded(subject.provider)
  const samples = subject.payer ?? {}
  /** What Tender may ask the adapter for a payment of the contract's method. */
  const can: P.Capabilities = P.capabilitiesOf(subject.provider, method)
  runtime = ManagedRuntime.make(services(code, method.method, recorder.installed))
  await runtime.runPromise(Effect.void).catch(abandon)

  const context = (env: Environment = environment) =>
    Effect.map(Authentication.authenticate(keys[env]), (principal) => ({ principal, requestId: `req_contract_${++requests}` }))
  const scope = { merchantId, environment }
  const intent = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, id)), Option.getOrThrow)
  const refund = (id: string) => Effect.map(Effect.flatMap(Storage.Storage, (s) => s.find(Refund.table, id)), Option.getOrThrow)
  const drain = Workers.drain({ owner: "provider_contract" })
  const outcomes: ReadonlyArray<Outcome> = driver.outcomes ?? ["pending", "succeeded", "failed", "processing", "canceled"]
  const amountFor = (outcome: Outcome) => driver.amount?.(outcome) ?? defaultAmount(method)

  /** A merchant-mode create through Tender (4.1), paying with the contract's method. */
  const create = (outcome: Outcome, env: Environment = environment, amount: string = amountFor(outcome)) =>
    Effect.gen(function*() {
      const params = yield* Effect.orDie(
        Schema.decodeUnknown(PaymentIntent.CreateParams)({
          amount,
          currency: method.currencies[0],
          country: method.countries[0],
          checkout_mode: "merchant",
          payment_method: method.method,
          ...payerOf(method, samples)
        })
      )
      const answer = yield* PaymentIntents.create(yield* context(env), params)
      return { status: answer.status, body: JSON.parse(answer.body) as Record<string, any> }
    })

  /** A created payment as the driver and the adapter name it. */
  const paymentOf = (record: PaymentIntent.PaymentIntentRecord): Payment => ({
    paymentIntentId: record.id,
    providerPaymentId: record.providerPaymentId ?? "",
    environment: record.environment,
    amount: record.amount,
    currency: record.currency
  })

  /** Create, expecting the provider to hold the payment. */
  const created = (outcome: Outcome, amount?: string) =>
    Effect.gen(function*() {
      const answer = yield* create(outcome, environment, amount)
      if (answer.status !== 201) return yield* Effect.dieMessage(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`)
      const record = yield* intent(answer.body["id"])
      if (record.providerPaymentId === null) return yield* Effect.dieMessage(`create left ${record.id} ${record.status} without a provider payment`)
      return { answer: answer.body, record, payment: paymentOf(record) }
    })

  /** Tender learns of the payment: the notices the driver's settle caused, else a confirm (4.5). */
  const learn = (id: string) =>
    Effect.gen(function*() {
      yield* drain
      if ((yield* intent(id)).status !== "requires_action") return yield* intent(id)
      yield* PaymentIntents.confirm(yield* context(), id)
      yield* drain
      return yield* intent(id)
    })

  /** A payment the payer paid, `succeeded` in Tender. */
  const paid = Effect.gen(function*() {
    const { payment, record } = yield* created("succeeded")
    yield* Effect.promise(() => driver.settle(payment, "succeeded"))
    const after = yield* learn(record.id)
    if (after.status !== "succeeded") return yield* Effect.dieMessage(`a paid payment is ${after.status} in Tender, not succeeded`)
    return { payment, record: after }
  })

  /** A refund through Tender (D10), settled at the provider when the driver can. */
  const refundThrough = (paymentIntentId: string, amount?: string) =>
    Effect.gen(function*() {
      const params = yield* Effect.orDie(
        Schema.decodeUnknown(Refund.CreateParams)({
          payment_intent: paymentIntentId,
          ...(amount === undefined ? {} : { amount }),
          ...(method.refunds === "bank_account" && method.banks[0] !== undefined
            ? { destination: { type: "bank_account", bank: method.banks[0].code, account_number: "0123456789", account_name: "Somchai Jaidee" } }
            : {})
        })
      )
      const answer = yield* Refunds.create(yield* context(), params)
      return { status: answer.status, body: JSON.parse(answer.body) as Record<string, any> }
    })

  const settleRefund = (refundId: string, payment: Payment, outcome: "succeeded" | "failed" = "succeeded") =>
    Effect.gen(function*() {
      yield* drain
      const pending = yield* refund(refundId)
      if (pending.status === "pending" && driver.settleRefund !== undefined) {
        yield* Effect.promise(() => driver.settleRefund!({ refundId, payment, amount: pending.amount }, outcome))
        yield* drain
      }
      return yield* refund(refundId)
    })

  /** A create as Tender sends it to the adapter (`ProviderPaymentRequest`), for a call Tender did not make. */
  const requestFor = (paymentIntentId: string, env: Environment = environment): P.ProviderPaymentRequest => {
    const payer = payerOf(method, samples)
    const entered: Record<string, string> = { ...payer.payment_method_options, customer_name: payer.customer.name! }
    if (payer.customer["phone"] !== undefined) entered["customer_phone"] = payer.customer["phone"]
    const fields = Object.fromEntries(
      Object.keys(method.payer).flatMap((f) => {
        const value = f === "bank" ? method.banks.find((b) => b.code === entered[f])?.providerCode : entered[f]
        return value === undefined ? [] : [[f, value]]
      })
    )
    return {
      paymentIntentId,
      environment: env,
      amount: amountFor("succeeded"),
      currency: method.currencies[0] ?? "THB",
      country: method.countries[0] ?? "TH",
      providerMethod: method.providerMethod,
      customer: payer.customer,
      payer: method.payerFamily === undefined ? null : { family: method.payerFamily.family, fields },
      returnUrl: null
    }
  }

  return {
    code,
    method,
    can,
    requestFor,
    environment,
    declared,
    served,
    driver,
    outcomes,
    amountFor,
    /** The adapter itself, as the host gave it (not the recorder). */
    provider: subject.provider,
    recorder,
    door,
    run,
    scope,
    context,
    intent,
    refund,
    drain,
    create,
    created,
    learn,
    paid,
    paymentOf,
    refundThrough,
    settleRefund,
    confirm: (id: string) => Effect.flatMap(context(), (c) => PaymentIntents.confirm(c, id)),
    /** Tender polls the provider for the payment now (the task a processing payment gets), and the workers run it. */
    poll: (id: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const task = yield* Task.make({ ...scope, kind: "payment_intent.poll", resourceId: id, dueAt: now, now })
        yield* Effect.flatMap(Storage.Storage, (s) => s.commit([Storage.Write.insert(Task.table, task)]))
        yield* drain
      }),
    /** The refunds of a payment intent, late-payment ones included (D10). */
    refundsOf: (id: string) => Effect.flatMap(context(), (c) => Effect.map(Refunds.list(c.principal, { payment_intent: id }), (page) => page.data)),
    cancel: (id: string) => Effect.flatMap(context(), (c) => PaymentIntentCancel.cancel(c, id, {})),
    json: (id: string) => Effect.flatMap(context(), (c) => PaymentIntents.retrieveJson(c.principal, id)),
    refundJson: (id: string) => Effect.flatMap(context(), (c) => Effect.map(Refunds.retrieve(c.principal, id), (r) => JSON.stringify(r))),
    events: (id: string) => Event.forResource(scope, id),
    eventTypes: (id: string) => Effect.map(Event.forResource(scope, id), (es) => es.map((e) => e.type)),
    /** The stored notice of one of this provider's events (D11). */
    stored: (eventId: string) => Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(code, eventId))),
    /** The notices the adapter reads in a request (verification only: nothing is stored). */
    noticesIn: (request: PN.ProviderNotificationRequest) =>
      subject.provider.parseNotification === undefined
        ? Effect.succeed([] as ReadonlyArray<PN.ProviderNotice>)
        : Effect.map(subject.provider.parseNotification(request), (p) => p.notices),
    /** A reference to a payment, as Tender passes it to the adapter's later calls. */
    ref: (payment: Payment, createdAt: number): P.ProviderPaymentRef => ({ ...payment, createdAt }),
    freshIntentId: () => Ids.prefixes.paymentIntent + Ids.randomBase62(),
    close: async () => {
      await door.close()
      await runtime?.dispose()
      await subject.close?.()
    }
  }
}

/** @internal */
export type World = Awaited<ReturnType<typeof start>>
