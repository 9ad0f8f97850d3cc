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
import { payerDeclarationProblem, type ProviderPayer } from "./internal/payerFamilies.js"
import * as failures from "./internal/providerFailures.js"
import type { ProviderMethod } from "./internal/providerMethod.js"
import type { ProviderTopups } from "./internal/providerTopups.js"
import type { ProviderPaymentStatus, ProviderPaymentUpdate, ProviderReceipt } from "./internal/providerUpdate.js"
import { ProviderUnavailable } from "./internal/providerUpdate.js"
import type { NotificationUnverified, ParsedNotification, ProviderNotificationRequest } from "./ProviderNotification.js"

export {
  /** @since 0.1.0 */ familyOf,
  /** @since 0.1.0 @category models */ type PayerFamily,
  /** @since 0.1.0 */ payerFieldPath,
  /** @since 0.1.0 @category models */ type PayerFieldSpec,
  /** @since 0.1.0 @category models */ type ProviderPayer,
  /** @since 0.1.0 @category constants */ thaiBankAccount
} from "./internal/payerFamilies.js"
export {
  /** @since 0.1.0 */ amountInRange,
  /** @since 0.1.0 @category models */ type Capabilities,
  /** @since 0.1.0 @category constructors */ capabilitiesOf,
  /** @since 0.1.0 @category constructors */ onlineBankingMethod,
  /** @since 0.1.0 @category models */ type PayerField,
  /** @since 0.1.0 @category models */ payerFields,
  /** @since 0.1.0 @category constructors */ promptPayMethod,
  /** @since 0.1.0 @category models */ type ProviderBank,
  /** @since 0.1.0 @category models */ type ProviderMethod,
  /** @since 0.1.0 @category models */ type ThaiMethodOptions
} from "./internal/providerMethod.js"
export {
  /** @since 0.1.0 @category models */ type ProviderTopupInstructions,
  /** @since 0.1.0 @category models */ type ProviderTopupRef,
  /** @since 0.1.0 @category models */ type ProviderTopupRequest,
  /** @since 0.1.0 @category models */ type ProviderTopups,
  /** @since 0.1.0 @category models */ type TopupSourceOffer,
  /** @since 0.1.0 @category models */ type TopupSourceType
} from "./internal/providerTopups.js"
export {
  /** @since 0.1.0 @category models */ type ProviderPaymentStatus,
  /** @since 0.1.0 @category models */ type ProviderPaymentUpdate,
  /** @since 0.1.0 @category models */ type ProviderReceipt,
  /** @since 0.1.0 @category errors */ ProviderUnavailable
} from "./internal/providerUpdate.js"

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
        const problem = payerDeclarationProblem(p.code, m)
        if (problem !== undefined) throw new Error(problem)
      }
      byCode.set(p.code, p)
    }
    const vault = CredentialVault.make(options.accountKeys)
    return { get: (code) => byCode.get(code), all: providers, forAccount: accountAdapters(byCode, vault), vault }
  })
