/**
 * Request bodies and headers the tests and benchmarks send again and again.
 */
import { createHmac } from "node:crypto"
import { until } from "./poll.js"

/** A key pair as the API takes it in Basic auth. */
export interface Key {
  readonly public: string
  readonly secret: string
}

/** The Authorization value for `key` (public key as user, secret key as password). */
export const basic = (key: Key): string => "Basic " + Buffer.from(`${key.public}:${key.secret}`).toString("base64")

/** JSON's content type, as a headers object. */
export const jsonHeaders = { "content-type": "application/json" } as const

/** A Thai customer, as the spec's examples name one. */
export const customer = { name: "Somchai Jaidee", email: "somchai@example.com" } as const

/** POST /payment_intents: a merchant-mode PromptPay payment of 1,500.00 THB. */
export const promptpay = {
  amount: "150000",
  currency: "THB",
  country: "TH",
  checkout_mode: "merchant",
  payment_method: "th_promptpay",
  customer
} as const

/** The same payment with the customer named and nothing else (no email). */
export const promptpayNamed = { ...promptpay, customer: { name: customer.name } } as const

/**
 * POST /payment_intents: the named customer's payment by bank transfer, with the account the
 * transfer comes from when `accountNumber` is given.
 */
export const bankTransfer = (accountNumber?: string) => ({
  ...promptpayNamed,
  payment_method: "th_bank_transfer",
  payment_method_options: {
    bank: "KBANK",
    account_name: customer.name,
    ...(accountNumber === undefined ? {} : { account_number: accountNumber }),
    name_th: "สมชาย ใจดี"
  }
})

/** POST /payment_intents: a hosted-checkout payment (no method; the customer picks it on the page). */
export const hosted = { amount: "150000", currency: "THB", country: "TH", customer: {} } as const

/** The named customer's PromptPay payment of `amount` (minor units, as a string). */
export const promptpayFor = (amount: string) => ({ ...promptpayNamed, amount })

/** POST /topup_intents: a test-funding top-up crediting 2,000.00 THB. */
export const topup = { destination_amount: "200000", destination_currency: "THB", source: { type: "test_funding" } } as const

/** POST /payout_intents: 100.00 THB to the named customer's KBANK account, under `reference`. */
export const payout = (reference: string) => ({
  amount: "10000",
  currency: "THB",
  merchant_reference: reference,
  destination: { type: "bank_account" as const, bank: "KBANK", account_number: "1234567890", account_name: customer.name }
})

/**
 * The headers of a simulator notification of `body` (D11), signed as docs/test-environment.md
 * says, written here from the documentation alone (not with core's signer), so a test of it checks
 * the documented format: `tender-simulator-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * t + "." + body)>`, with the simulator's test secret unless another is given.
 */
export const simulatorNotificationHeaders = (body: string, secret = "simulator_notification_test_secret") => {
  const t = Math.floor(Date.now() / 1000)
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")
  return { "content-type": "application/json", "tender-simulator-signature": `t=${t},v1=${v1}` }
}

/**
 * Fund a test balance as D12 says one is funded: a `test_funding` top-up of `amount` THB, posted
 * to the Tender mounted at `base` with `key`, polled until the workers paid it (a payout draws
 * from the available balance).
 */
export const fundBalance = async (base: string, key: Key, amount = "200000") => {
  const authorization = basic(key)
  const created = await fetch(`${base}/topup_intents`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
    body: JSON.stringify({ ...topup, destination_amount: amount })
  })
  if (created.status !== 201) throw new Error(`funding top-up answered ${created.status}: ${await created.text()}`)
  const { id } = await created.json() as { id: string }
  const read = async () => (await (await fetch(`${base}/topup_intents/${id}`, { headers: { authorization } })).json()) as { status: string }
  const paid = await until(read, (t) => t.status !== "requires_payment" && t.status !== "processing")
  if (paid.status !== "succeeded") throw new Error(`funding top-up ended ${paid.status}`)
}
