/**
 * Payment providers as a port. An adapter declares what it can serve and implements
 * create-payment; the `ProviderRegistry` holds the adapters a host installs.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"
import { Context, Effect, Layer } from "effect"
import type { ProviderAccount } from "../merchants/Merchants.js"
import type { Customer } from "../paymentIntents/PaymentIntent.js"
import type { Environment } from "../resources/Schemas.js"
import * as CredentialVault from "./CredentialVault.js"
import { accountAdapters } from "./internal/accountAdapters.js"
import * as payers from "./internal/payerFamilies.js"
import * as failures from "./internal/providerFailures.js"
import * as methods from "./internal/providerMethod.js"
import type * as topups from "./internal/providerTopups.js"
import * as updates from "./internal/providerUpdate.js"
import type { NotificationUnverified, ParsedNotification, ProviderNotificationRequest } from "./ProviderNotification.js"

/** One field of a payer family: its `format` (checked before any provider is called) or whether it is a `bank` choice. @since 0.1.0 @category models */
export type PayerFieldSpec = payers.PayerFieldSpec
/**
 * A family of payer data: its name (what `ProviderPaymentRequest.payer.family` says) and its
 * fields by discovery name, each living in the create request at `payerFieldPath(name)`.
 * @since 0.1.0 @category models
 */
export type PayerFamily = payers.PayerFamily
/** The payer data a provider gets with a create: the method's family and the payer's values (a bank as the provider's code). @since 0.1.0 @category models */
export type ProviderPayer = payers.ProviderPayer
/** Where a payer field lives in the create request (2.2's mapping table). @since 0.1.0 @category getters */
export const payerFieldPath = payers.payerFieldPath
/** A Thai payer's bank account and names (2.2's payer fields): the family of every Thai method, the simulator's included. @since 0.1.0 @category constants */
export const thaiBankAccount = payers.thaiBankAccount
/**
 * The family a method's payer data is read with: the one it declares; for a method of 0.1.0 that
 * declares none but asks for 2.2's fields, the family of those fields (`thaiBankAccount`).
 * @since 0.1.0 @category getters
 */
export const familyOf = payers.familyOf

/**
 * Everything a provider can say about a payment, whatever asked or told it, applied by one
 * function (`PaymentIntentLifecycle.applyUpdate`): `Action` (the payer must act), `Processing`
 * (ask again later), `Pending` (nothing happened yet), `Succeeded` (with the provider's `amount`
 * and `currency` where it says them: a payment that differs from its intent's is never marked
 * succeeded, D11), `Failed` (a D1 `failureCode` and its message), `Canceled` (no longer payable).
 * @since 0.1.0 @category models
 */
export type ProviderPaymentUpdate = updates.ProviderPaymentUpdate
/** What the provider says of a payment after create (confirm, poll, receipt): the one update type. @since 0.1.0 @category models */
export type ProviderPaymentStatus = updates.ProviderPaymentStatus
/** A receipt (payment evidence) for the provider: a JPEG or PNG of at most 5 MiB (4.4). @since 0.1.0 @category models */
export type ProviderReceipt = updates.ProviderReceipt
/**
 * The provider could not be reached or answered with a fault; counts against the route's health.
 * `ambiguous`: whether it may have acted (absent: it may have; `ProviderKit.mayHaveActed`). One
 * that cannot have (a refused connection, a 401 or 429) is safe to send to another route; one that
 * may have (a timeout, a 5xx) is remembered (`ProviderAttempt`).
 * @since 0.1.0 @category errors
 */
export const ProviderUnavailable = updates.ProviderUnavailable
/** @since 0.1.0 @category errors */
export type ProviderUnavailable = updates.ProviderUnavailable

/** The payer fields of 2.4's discovery table (the Thai family's; a method's family may declare others). @since 0.1.0 @category models */
export type PayerField = methods.PayerField
/** Every payer field, in the order of 2.2's mapping table. @since 0.1.0 @category models */
export const payerFields = methods.payerFields
/** A bank choice: the public code, its label and the provider's own code (never exposed). @since 0.1.0 @category models */
export type ProviderBank = methods.ProviderBank
/** One public method as one provider serves it: its codes, bounds, banks, payer family and capabilities. @since 0.1.0 @category models */
export type ProviderMethod = methods.ProviderMethod
/** What a provider gives of a Thai method it serves (`promptPayMethod`, `onlineBankingMethod`). @since 0.1.0 @category models */
export type ThaiMethodOptions = methods.ThaiMethodOptions
/** PromptPay as any provider serves it: a QR code, the customer's name optional unless `payer` says otherwise. @since 0.1.0 @category constructors */
export const promptPayMethod = methods.promptPayMethod
/** Thai online banking: a redirect to the payer's bank, named from `banks` unless `payer` says otherwise. @since 0.1.0 @category constructors */
export const onlineBankingMethod = methods.onlineBankingMethod
/** Whether `amount` lies within a method's inclusive bounds, compared as bigint. @since 0.1.0 @category guards */
export const amountInRange = methods.amountInRange
/** What can be done at the provider for a payment of a method: confirm (4.5), poll, cancel, refund (D10), receipt (4.4). @since 0.1.0 @category models */
export type Capabilities = methods.Capabilities
/**
 * What `provider` can do for a payment of `method`: what its functions allow, less what the method
 * withdraws; a refund needs the method's `refunds` too. Every rule that calls a provider after
 * create asks this first: no poll is scheduled for a method that cannot be polled.
 * @since 0.1.0 @category constructors
 */
export const capabilitiesOf = methods.capabilitiesOf

/** The source types of a top-up (2.5). @since 0.1.0 @category models */
export type TopupSourceType = topups.TopupSourceType
/** One way a provider takes top-up money: a source type in a currency, on a network for crypto. @since 0.1.0 @category models */
export type TopupSourceOffer = topups.TopupSourceOffer
/** A top-up as a provider starts it: our id is its idempotency key. @since 0.1.0 @category models */
export type ProviderTopupRequest = topups.ProviderTopupRequest
/** How the payer pays a top-up: a crypto deposit address, bank instructions, or nothing to show. @since 0.1.0 @category models */
export type ProviderTopupInstructions = topups.ProviderTopupInstructions
/** A top-up the provider holds, as the later operations name it. @since 0.1.0 @category models */
export type ProviderTopupRef = topups.ProviderTopupRef
/** A provider's top-up capability (2.5): its sources and the calls a top-up makes. @since 0.1.0 @category models */
export type ProviderTopups = topups.ProviderTopups

/**
 * Tender's failure codes, each with the one message it carries (D1: a provider's own codes are
 * never exposed); the list adapters name a failure from (`ProviderKit.failureMessages`).
 *
 * @since 0.1.0 @category constants
 */
export const failureMessages = failures.failureMessages

/** One of `failureMessages`' codes: what a `Failed` answer carries. @since 0.1.0 @category models */
export type FailureCode = failures.FailureCode

/** A provider's own codes (and texts) for each of Tender's failure codes it tells apart. @since 0.1.0 @category models */
export type FailureCodes = failures.FailureCodes

/**
 * Tender's failure for a provider's decline: the first of `reasons` (the provider's codes, most
 * telling first; absent ones skipped) that `codes` lists, else `payment_declined`.
 *
 * @since 0.1.0 @category constructors
 */
export const failureFor = failures.failureFor

/** What the orchestrator asks a provider to do. @since 0.1.0 @category models */
export interface ProviderPaymentRequest {
  /** Our payment intent id; providers use it as their idempotency key, so a retry cannot pay twice. */
  readonly paymentIntentId: string
  readonly environment: Environment
  readonly amount: string
  readonly currency: string
  readonly country: string
  readonly providerMethod: string
  readonly customer: Customer
  /**
   * The payer data of the method's family (`ProviderMethod.payerFamily`), checked against it
   * before the call: `{ family: "thai_bank_account", fields: { bank: "<provider's code>", … } }`.
   * Null for a method that takes none.
   */
  readonly payer: ProviderPayer | null
  readonly returnUrl: string | null
}

/**
 * The provider's answer to a create: one of the updates a new payment can be in (a payer
 * action, processing, or failed), with the provider's id of the payment (none only for a
 * payment refused before the provider held it).
 *
 * @since 0.1.0 @category models
 */
export type ProviderPaymentResult =
  | (Extract<ProviderPaymentUpdate, { readonly _tag: "Action" | "Processing" }> & { readonly providerPaymentId: string })
  | (Extract<ProviderPaymentUpdate, { readonly _tag: "Failed" }> & { readonly providerPaymentId: string | null })

/** A payment the provider holds, as the later operations name it. @since 0.1.0 @category models */
export interface ProviderPaymentRef {
  /** Our payment intent id: the provider's idempotency key for every operation on it. */
  readonly paymentIntentId: string
  readonly providerPaymentId: string
  readonly environment: Environment
  readonly amount: string
  readonly currency: string
  /** When the intent was created, epoch ms. */
  readonly createdAt: number
}

/** A provider adapter. @since 0.1.0 @category models */
export interface PaymentProvider {
  readonly code: string
  readonly methods: ReadonlyArray<ProviderMethod>
  /** Start a payment (4.1). */
  readonly createPayment: (request: ProviderPaymentRequest) => Effect.Effect<ProviderPaymentResult, ProviderUnavailable>
  /**
   * Ask the provider to confirm a pending payment (4.5): has the payer paid? Optional, as every
   * function after create (`capabilitiesOf`): without it a confirm is 409.
   */
  readonly confirmPayment?: ((payment: ProviderPaymentRef) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>) | undefined
  /**
   * The payment's status now (pull), for payments the provider is still processing. Optional:
   * a provider that only tells by notification has none, and Tender never polls it.
   */
  readonly getPaymentStatus?: ((payment: ProviderPaymentRef) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>) | undefined
  /** Submit the payer's receipt for a payment that asks for one (4.4). Optional: without it a receipt is 409. */
  readonly submitReceipt?:
    | ((payment: ProviderPaymentRef, receipt: ProviderReceipt) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>)
    | undefined
  /**
   * Send an approved payout (D8), for providers that pay out. Our payout id is the provider's
   * idempotency key: the task may call it more than once.
   */
  readonly sendPayout?: ((payout: ProviderPayout) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>) | undefined
  /**
   * Stop a pending payment (D10 cancel) so its payer action is no longer payable: `Canceled`, or
   * `Succeeded` when the payer had paid already (refunded as a late payment). Optional: a
   * provider without it is not told, and a payment it reports later is refunded as a late payment.
   * Our payment intent id is the idempotency key: the task may call it more than once.
   */
  readonly cancelPayment?: ((payment: ProviderPaymentRef) => Effect.Effect<ProviderCancelResult, ProviderUnavailable>) | undefined
  /**
   * Refund all or part of a succeeded payment (D10). Optional, and only for the methods whose
   * `refunds` says how. Our refund id is the provider's idempotency key: the task may call it
   * more than once for one refund, and the provider refunds once.
   */
  readonly refund?: ((refund: ProviderRefundRequest) => Effect.Effect<ProviderRefundStatus, ProviderUnavailable>) | undefined
  /** Accept top-ups (2.5), for providers that do. */
  readonly topups?: ProviderTopups | undefined
  /**
   * Verify and read a notification the provider sent (D11): the signature is over the exact
   * request bytes. Optional: without it, `POST /provider_notifications/{code}` answers 404.
   */
  readonly parseNotification?:
    | ((request: ProviderNotificationRequest) => Effect.Effect<ParsedNotification, NotificationUnverified>)
    | undefined
  /** How the adapter serves merchants' own accounts (D13). Absent: routes of this provider cannot name an account. */
  readonly accounts?: AccountSupport | undefined
}

/** One account's credentials in clear, as `AccountSupport.forAccount` gets them. @since 0.1.0 @category models */
export interface AccountCredentials {
  readonly id: string
  readonly environment: Environment
  readonly credentials: Readonly<Record<string, string>>
}

/**
 * How an adapter serves merchants' own provider accounts (D13).
 *
 * `credentials` is the schema of what an account holds (a `Schema.Struct` of its fields),
 * checked whenever an account is written: a field it refuses is 400 `validation_failed` naming
 * the field and what it must be (its `description` annotation), never the value given.
 * `forAccount` builds the adapter of one account; Tender builds it once per account and reuses
 * it. It serves only the account's environment, and its `parseNotification` verifies with that
 * account's secret alone.
 *
 * @since 0.1.0 @category models
 */
export interface AccountSupport {
  readonly credentials: Schema.Schema<any, any>
  readonly forAccount: (account: AccountCredentials) => PaymentProvider
}

/** The adapter of a merchant's account, or why there is none now (`reason` never holds a secret). @since 0.1.0 @category models */
export type AccountAdapter =
  | { readonly _tag: "Ready"; readonly provider: PaymentProvider }
  | { readonly _tag: "Unusable"; readonly reason: string }

/**
 * What a cancel did at the provider: `Canceled` (no longer payable), or what the payment is
 * when the provider could not stop it (`Succeeded`: the payer had paid already, and Tender
 * refunds it as a late payment, D10). The one update type.
 *
 * @since 0.1.0 @category models
 */
export type ProviderCancelResult = ProviderPaymentUpdate

/** A refund as a provider sends it (D10). @since 0.1.0 @category models */
export interface ProviderRefundRequest {
  /** Our refund id (`rfnd_…`): the provider's idempotency key. */
  readonly refundId: string
  readonly payment: ProviderPaymentRef
  /** How much to give back, minor units of the payment's currency. */
  readonly amount: string
  /** The bank account to refund to, for a method refunded to one; null to refund to the source. */
  readonly destination: {
    readonly providerBank: string
    readonly accountNumber: string
    readonly accountName: string
  } | null
  /** When the refund was created, epoch ms. */
  readonly createdAt: number
}

/**
 * Where a refund stands at the provider: `Succeeded` and `Failed` are final; `Pending`: ask
 * again later.
 *
 * @since 0.1.0 @category models
 */
export type ProviderRefundStatus =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly failureCode: string; readonly failureMessage: string }
  | { readonly _tag: "Pending" }

/** An approved payout, as a provider sends it. @since 0.1.0 @category models */
export interface ProviderPayout {
  readonly payoutIntentId: string
  readonly environment: Environment
  readonly amount: string
  readonly currency: string
  /** The bank's provider-local code (from the catalogue). */
  readonly providerBank: string
  readonly accountNumber: string
  readonly accountName: string
}

/** The providers a host installed, by code, and the adapters of merchants' own accounts (D13). @since 0.1.0 @category tags */
export class ProviderRegistry extends Context.Tag("@tender/core/ProviderRegistry")<ProviderRegistry, {
  /** The installed adapter of `code`: the deployment's own account. */
  readonly get: (code: string) => PaymentProvider | undefined
  readonly all: ReadonlyArray<PaymentProvider>
  /** The adapter of `merchantId`'s account (D13): built once per account, again only when its stored credentials change. */
  readonly forAccount: (merchantId: string, account: ProviderAccount) => AccountAdapter
  /** Seals and opens account credentials under the host's keys. */
  readonly vault: CredentialVault.Vault
}>() {}

/** @since 0.1.0 @category models */
export interface RegistryOptions {
  /** The keys account credentials are sealed with, newest first (D13, `CredentialVault`). */
  readonly accountKeys?: ReadonlyArray<CredentialVault.AccountKey> | undefined
}

/**
 * A registry of the given adapters; duplicate codes, a method asking for payer fields its family
 * does not declare, and account keys that are not 32 bytes, are configuration errors.
 *
 * @since 0.1.0 @category layers
 */
export const layerRegistry = (providers: ReadonlyArray<PaymentProvider>, options: RegistryOptions = {}): Layer.Layer<ProviderRegistry> =>
  Layer.sync(ProviderRegistry, () => {
    const byCode = new Map<string, PaymentProvider>()
    for (const p of providers) {
      if (byCode.has(p.code)) throw new Error(`Two providers share the code ${p.code}`)
      for (const m of p.methods) {
        const problem = payers.payerDeclarationProblem(p.code, m)
        if (problem !== undefined) throw new Error(problem)
      }
      byCode.set(p.code, p)
    }
    const vault = CredentialVault.make(options.accountKeys)
    return { get: (code) => byCode.get(code), all: providers, forAccount: accountAdapters(byCode, vault), vault }
  })
