/**
 * The simulated provider of D9: serves every `test` route out of the box with a Thai
 * catalogue, so a new user walks every flow without a real provider. Magic amounts drive
 * outcomes deterministically (docs/test-environment.md).
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { NextAction } from "../paymentIntents/NextAction.js"
import type {
  PaymentProvider,
  ProviderBank,
  ProviderMethod,
  ProviderPaymentRef,
  ProviderPaymentRequest,
  ProviderPaymentResult,
  ProviderUnavailable
} from "../providers/Provider.js"
import { onlineBankingMethod, promptPayMethod, thaiBankAccount } from "../providers/Provider.js"
import { createByMethod, failure } from "../providers/ProviderKit.js"
import type { ProviderNotificationRequest } from "../providers/ProviderNotification.js"
import { sha256 } from "../requests/Canonical.js"
import { formatTimestamp } from "../resources/Schemas.js"
import * as simulator from "./internal/simulator.js"
import { serves, timingsOf } from "./internal/simulator.js"
import * as notifications from "./internal/simulatorNotifications.js"
import { parseNotification } from "./internal/simulatorNotifications.js"
import * as simulatorTopups from "./internal/simulatorTopups.js"

/** The provider code hosts route to. @since 0.1.0 @category constants */
export const code = simulator.code

/**
 * Magic amounts (minor units), as Stripe's test cards: each drives one outcome (each key says
 * which). Any other amount is paid when confirmed, and a receipt for it is accepted.
 * @since 0.1.0 @category constants
 */
export const magicAmounts = simulator.magicAmounts

/** How long the payer action of `magicAmounts.expireSoon` lives by default. @since 0.1.0 @category constants */
export const shortExpiryMillis = simulator.shortExpiryMillis

/** When, after create, the provider settles a `magicAmounts.slowConfirmation` payment by default. @since 0.1.0 @category constants */
export const slowConfirmationMillis = simulator.slowConfirmationMillis

/** When, after it was created, the provider settles a `magicAmounts.slowRefund` refund by default. @since 0.1.0 @category constants */
export const slowRefundMillis = simulator.slowRefundMillis

/**
 * The delays of the slow magic amounts, in ms: `make`'s `timings`, by default the constants above
 * (a test running the simulator in a real process shortens them: it cannot move a clock there).
 * @since 0.1.0 @category models
 */
export type Timings = simulator.Timings

/** The header that carries a notification's signature (D11, docs/test-environment.md). @since 0.1.0 @category constants */
export const signatureHeader = notifications.signatureHeader

/** The secret the simulator signs and verifies its notifications with unless `make`'s options name another. @since 0.1.0 @category constants */
export const defaultNotificationSecret = notifications.defaultNotificationSecret

/** How far a signature's time may be from now: older ones are replays. @since 0.1.0 @category constants */
export const signatureToleranceSeconds = notifications.signatureToleranceSeconds

/** A notification the simulator sends: a JSON event (`id`, `type`, `livemode`, `data`), signed as Stripe signs its own. @since 0.1.0 @category models */
export const SimulatorEvent = notifications.SimulatorEvent
/** @since 0.1.0 @category models */
export type SimulatorEvent = notifications.SimulatorEvent

/**
 * The signature header of a simulator notification, `t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * t + "." + body)>`: what the simulator sends, and what tests send to walk the notification path;
 * `timestamp` in seconds (default now).
 * @since 0.1.0 @category constructors
 */
export const signNotification = notifications.signNotification

/**
 * The simulator's top-up sources (2.5): free test money in THB or USD, a manual bank transfer in
 * THB proved by a receipt, and a crypto gateway (USDT on Tron, ETH on Ethereum).
 * @since 0.1.0 @category constants
 */
export const topupSources = simulatorTopups.topupSources

/** Thai banks with their Bank of Thailand numeric codes as the provider-local code. @since 0.1.0 */
export const thaiBanks: ReadonlyArray<ProviderBank> = [
  { code: "BBL", label: "Bangkok Bank", providerCode: "002" },
  { code: "KBANK", label: "Kasikornbank", providerCode: "004" },
  { code: "KTB", label: "Krungthai Bank", providerCode: "006" },
  { code: "TTB", label: "TMBThanachart Bank", providerCode: "011" },
  { code: "SCB", label: "Siam Commercial Bank", providerCode: "014" },
  { code: "CIMBT", label: "CIMB Thai Bank", providerCode: "022" },
  { code: "UOBT", label: "UOB Thailand", providerCode: "024" },
  { code: "BAY", label: "Krungsri (Bank of Ayudhya)", providerCode: "025" },
  { code: "GSB", label: "Government Savings Bank", providerCode: "030" },
  { code: "KKP", label: "Kiatnakin Phatra Bank", providerCode: "069" }
]

const onlineBankingBanks = thaiBanks.filter((b) => ["BBL", "KBANK", "KTB", "SCB", "BAY"].includes(b.code))

/** The simulator's catalogue. @since 0.1.0 */
export const methods: ReadonlyArray<ProviderMethod> = [
  promptPayMethod({ providerMethod: "SIM_PP_QR", minAmount: "100", maxAmount: "200000000", environments: ["test"] }),
  {
    method: "th_bank_transfer",
    providerMethod: "SIM_BT_MANUAL",
    category: "bank_transfer",
    label: "Bank transfer",
    nextActionType: "display_bank_transfer_instructions",
    countries: ["TH"],
    currencies: ["THB"],
    minAmount: "2000",
    maxAmount: "1000000000",
    environments: ["test"],
    checkoutModes: ["hosted", "merchant"],
    banks: thaiBanks,
    payer: {
      customer_name: { required: true },
      account_name: { required: true },
      account_number: { required: false },
      bank: { required: true },
      name_th: { required: true }
    },
    payerFamily: thaiBankAccount,
    // A manual transfer is refunded by a transfer back: to an account the merchant names.
    refunds: "bank_account"
  },
  onlineBankingMethod({
    providerMethod: "SIM_OB_REDIRECT",
    minAmount: "2000",
    maxAmount: "500000000",
    environments: ["test"],
    banks: onlineBankingBanks,
    payer: { bank: { required: true }, customer_phone: { required: true } }
  })
]

const actionTtlMs = 15 * 60 * 1000

/** `Omit` over each member of a union (each next action type keeps its own fields). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/**
 * The simulated provider, with what its simulated payer sends (D9): `payerNotification` signs one
 * of its events with its own notification secret, for Tender's notification door
 * (`ProviderNotifications.receive`), the door a real provider's notifications take.
 *
 * @since 0.1.0 @category models
 */
export interface SimulatorProvider extends PaymentProvider {
  /** The simulator answers every call after create (its payer asks it as a confirm would). */
  readonly confirmPayment: NonNullable<PaymentProvider["confirmPayment"]>
  readonly getPaymentStatus: NonNullable<PaymentProvider["getPaymentStatus"]>
  readonly submitReceipt: NonNullable<PaymentProvider["submitReceipt"]>
  readonly payerNotification: (event: SimulatorEvent) => Effect.Effect<ProviderNotificationRequest>
}

/** Whether an installed adapter is the simulator, which can sign its payer's notifications. @since 0.1.0 @category guards */
export const isSimulator = (provider: PaymentProvider | undefined): provider is SimulatorProvider =>
  provider !== undefined && provider.code === code && "payerNotification" in provider

/** A method's create: the magic amounts first (D9), then the method's payer action, expiring with it. */
const create =
  (timings: Timings, action: (request: ProviderPaymentRequest, providerPaymentId: string) => DistributiveOmit<NextAction, "expires_at">) =>
  (request: ProviderPaymentRequest): Effect.Effect<ProviderPaymentResult, ProviderUnavailable> =>
    Effect.gen(function*() {
      yield* serves(request)
      const providerPaymentId = "sim_" + sha256(request.paymentIntentId).slice(0, 24)
      if (request.amount === magicAmounts.declineOnCreate) return { _tag: "Failed", providerPaymentId, ...failure("payment_declined") }
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const expiresAt = formatTimestamp(now + (request.amount === magicAmounts.expireSoon ? timings.shortExpiryMillis : actionTtlMs))
      return { _tag: "Action", providerPaymentId, nextAction: { ...action(request, providerPaymentId), expires_at: expiresAt } as NextAction }
    })

/** The creates of the catalogue's methods: a QR code, transfer instructions, the simulated bank's page under `baseUrl`. */
const creates = (timings: Timings, baseUrl: string) =>
  createByMethod(code, methods, {
    SIM_PP_QR: create(timings, (request, providerPaymentId) => ({
      type: "display_qr_code",
      qr_data: promptPayPayload(request.amount, providerPaymentId)
    })),
    SIM_BT_MANUAL: create(timings, (request, providerPaymentId) => ({
      type: "display_bank_transfer_instructions",
      bank_code: "KBANK",
      bank_name: "Kasikornbank",
      account_number: "0471234567",
      account_name: "Tender Simulator Co., Ltd.",
      reference: providerPaymentId.slice(4, 16).toUpperCase(),
      amount: request.amount,
      currency: request.currency,
      requires_receipt: true
    })),
    SIM_OB_REDIRECT: create(timings, (request, providerPaymentId) => ({
      type: "redirect_to_url",
      // The simulated bank's page (served by @tender/http in test) names our intent, as a real
      // provider's page knows its payment.
      url: `${baseUrl}/online_banking/${request.payer?.fields["bank"] ?? "000"}/${providerPaymentId}?payment_intent=${request.paymentIntentId}`
    }))
  })

const confirmPayment: SimulatorProvider["confirmPayment"] = (payment) =>
  Effect.gen(function*() {
    yield* serves(payment)
    switch (payment.amount) {
      case magicAmounts.declineOnConfirm:
        return { _tag: "Failed" as const, ...failure("payment_declined") }
      case magicAmounts.slowConfirmation:
        return { _tag: "Processing" as const }
      case magicAmounts.expireSoon:
        // The payer never pays: the intent waits for its action to expire.
        return { _tag: "Pending" as const }
      default:
        return paid(payment)
    }
  })

const getPaymentStatus = (timings: Timings): SimulatorProvider["getPaymentStatus"] => (payment) =>
  Effect.gen(function*() {
    yield* serves(payment)
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    if (payment.amount === magicAmounts.slowConfirmation) {
      return now >= payment.createdAt + timings.slowConfirmationMillis ? paid(payment) : { _tag: "Processing" as const }
    }
    return payment.amount === magicAmounts.overpaid ? paid(payment) : { _tag: "Pending" as const }
  })

const sendPayout: NonNullable<PaymentProvider["sendPayout"]> = (payout) =>
  Effect.gen(function*() {
    yield* serves({ environment: payout.environment, amount: payout.amount })
    return payout.amount === magicAmounts.payoutFails
      ? { _tag: "Failed" as const, ...failure("account_closed") }
      : { _tag: "Succeeded" as const }
  })

const submitReceipt: SimulatorProvider["submitReceipt"] = (payment) =>
  Effect.gen(function*() {
    yield* serves(payment)
    return payment.amount === magicAmounts.rejectReceipt
      ? { _tag: "Failed" as const, ...failure("receipt_rejected") }
      : paid(payment)
  })

const cancelPayment: PaymentProvider["cancelPayment"] = (payment) =>
  Effect.map(
    serves(payment),
    () => payment.amount === magicAmounts.paidAfterCancel || payment.amount === magicAmounts.overpaid ? paid(payment) : { _tag: "Canceled" as const }
  )

const refund = (timings: Timings): PaymentProvider["refund"] => (refund) =>
  Effect.gen(function*() {
    yield* serves(refund.payment)
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    switch (refund.amount) {
      case magicAmounts.refundFails:
        return { _tag: "Failed" as const, ...failure("refund_failed") }
      case magicAmounts.slowRefund:
        return now < refund.createdAt + timings.slowRefundMillis ? { _tag: "Pending" as const } : { _tag: "Succeeded" as const }
    }
    return { _tag: "Succeeded" as const }
  })

/** What the simulated payer sends: `event`, signed with `secret` at the clock's time. */
const payerNotification = (secret: string): SimulatorProvider["payerNotification"] => (event) =>
  Effect.map(Effect.clockWith((c) => c.currentTimeMillis), (now) => {
    const body = new TextEncoder().encode(JSON.stringify(event))
    return { headers: { [signatureHeader]: signNotification({ body, secret, timestamp: Math.floor(now / 1000) }) }, body }
  })

/**
 * The simulated provider. `baseUrl` is where its payer pages live; `notificationSecret` is what
 * its notifications are signed with (default `defaultNotificationSecret`); `timings` shortens or
 * lengthens the slow magic amounts (default `shortExpiryMillis`, `slowConfirmationMillis`,
 * `slowRefundMillis`). It keeps no state: every answer follows from the request, the amount and
 * Effect's `Clock`, so any process with the same timings answers alike.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (options: {
  readonly baseUrl?: string
  readonly notificationSecret?: string | undefined
  readonly timings?: Partial<Timings> | undefined
} = {}): SimulatorProvider => {
  const secret = options.notificationSecret ?? defaultNotificationSecret
  const baseUrl = (options.baseUrl ?? "https://simulator.tender.test").replace(/\/$/, "")
  const timings = timingsOf(options.timings)
  return {
    code,
    methods,
    createPayment: creates(timings, baseUrl),
    confirmPayment,
    getPaymentStatus: getPaymentStatus(timings),
    sendPayout,
    submitReceipt,
    cancelPayment,
    refund: refund(timings),
    topups: simulatorTopups.topups(timings.shortExpiryMillis),
    parseNotification: parseNotification(secret),
    payerNotification: payerNotification(secret),
    // A merchant's own simulator account (D13) differs only in the secret its notifications are signed with.
    accounts: {
      credentials: AccountCredentials,
      forAccount: (account) => make({ ...options, notificationSecret: account.credentials["notification_secret"] })
    }
  }
}

/** A payment paid, with what the payer paid: the amount asked, or one minor unit more (`magicAmounts.overpaid`). */
const paid = (payment: ProviderPaymentRef) => ({
  _tag: "Succeeded" as const,
  amount: payment.amount === magicAmounts.overpaid ? String(BigInt(payment.amount) + 1n) : payment.amount,
  currency: payment.currency
})

/** What a merchant's own simulator account holds (D13): the secret its notifications are signed with. @since 0.1.0 @category schemas */
export const AccountCredentials = Schema.Struct({
  notification_secret: Schema.String.pipe(Schema.minLength(16)).annotations({ description: "must be a secret of at least 16 characters" })
})

/** A PromptPay-style EMVCo payload (tag-length-value), enough to render a scannable test QR. */
const promptPayPayload = (amount: string, reference: string): string => {
  const tlv = (tag: string, value: string) => tag + String(value.length).padStart(2, "0") + value
  const major = amount.length > 2 ? amount.slice(0, -2) : "0"
  const minor = amount.slice(-2).padStart(2, "0")
  const body = tlv("00", "01") + tlv("01", "12") +
    tlv("29", tlv("00", "A000000677010111") + tlv("01", "0000000000000")) +
    tlv("53", "764") + tlv("54", `${major}.${minor}`) + tlv("58", "TH") +
    tlv("62", tlv("05", reference.slice(0, 25))) + "6304"
  return body + crc16(body)
}

const crc16 = (text: string): string => {
  let crc = 0xffff
  for (let i = 0; i < text.length; i++) {
    crc ^= text.charCodeAt(i) << 8
    for (let j = 0; j < 8; j++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}
