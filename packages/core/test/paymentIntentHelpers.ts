/**
 * What the payment intent tests of core share: creating as a key or a principal, listing, the
 * create bodies of each method, and a simulator that records what it was asked. Not a test file.
 */
import { Effect } from "effect"
import { PaymentIntent, PaymentIntents, Provider, Simulator, Storage } from "../src/index.js"
import { type Body, decodeParams, type Key, login } from "./fixtures.js"

export const create = (key: Key, body: Body, idempotencyKey?: string) =>
  Effect.gen(function*() {
    const principal = yield* login(key)
    const params = yield* Effect.orDie(decodeParams(body))
    return yield* PaymentIntents.create({ principal, requestId: "req_test", idempotencyKey }, params)
  })

export type Who = Effect.Effect.Success<ReturnType<typeof login>>

/** Create as an explicit principal (a merchant with routes set by the test). */
export const createAs = (principal: Who, body: Body, idempotencyKey?: string) =>
  Effect.flatMap(Effect.orDie(decodeParams(body)), (params) => PaymentIntents.create({ principal, requestId: "req_test", idempotencyKey }, params))

export const paramOf = (e: { readonly _tag: string }) => ("param" in e ? e.param : undefined)
/** The payment intent a commit inserts, if any. */
export const insertOf = (writes: ReadonlyArray<Storage.Write>) => {
  const insert = writes.find((w) => w._tag === "Insert")
  return insert === undefined ? undefined : insert.record as PaymentIntent.PaymentIntentRecord
}

export const listAll = (key: Key, params: PaymentIntents.ListParams = {}) =>
  Effect.flatMap(login(key), (who) => PaymentIntents.list(who, { limit: "100", ...params }))

export const hosted: Body = { amount: "150000", currency: "THB", country: "TH", customer: { name: "Somchai Jaidee" } }
export const promptpay: Body = { ...hosted, checkout_mode: "merchant", payment_method: "th_promptpay" }
export const bankTransfer: Body = {
  amount: "250000",
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_bank_transfer",
  customer: { name: "Somchai Jaidee", phone: "+66812345678" },
  payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", account_number: "0123456789", name_th: "สมชาย ใจดี" }
}

/** A payer complete enough for each simulator method in merchant mode. */
export const completeFor = (method: string): Body => {
  const customer = { name: "Somchai Jaidee", phone: "+66812345678" }
  switch (method) {
    case "th_bank_transfer":
      return { customer, payment_method_options: { bank: "KBANK", account_name: "Somchai Jaidee", name_th: "สมชาย ใจดี" } }
    case "th_online_banking":
      return { customer, payment_method_options: { bank: "SCB" } }
    default:
      return { customer }
  }
}

/** The simulator, recording every request it receives and optionally replaced per call. */
export const recording = (
  code = "simulator",
  override?: (req: Provider.ProviderPaymentRequest) => Effect.Effect<Provider.ProviderPaymentResult, Provider.ProviderUnavailable> | undefined
) => {
  const calls: Array<Provider.ProviderPaymentRequest> = []
  const sim = Simulator.make()
  const provider: Provider.PaymentProvider = {
    ...sim,
    code,
    createPayment: (req) => {
      calls.push(req)
      return override?.(req) ?? sim.createPayment(req)
    }
  }
  return { provider, calls }
}
