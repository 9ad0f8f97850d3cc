/**
 * A provider's top-up side (2.5): the sources it takes and the calls a top-up makes; `Provider`
 * re-exports all of it.
 */
import type { Effect } from "effect"
import type { Environment } from "../../resources/Schemas.js"
import type { ProviderPaymentStatus, ProviderReceipt, ProviderUnavailable } from "./providerUpdate.js"

/** The source types of a top-up (2.5). @since 0.1.0 @category models */
export type TopupSourceType = "test_funding" | "manual_receipt" | "provider_gateway"

/** One way a provider takes top-up money: a source type in a currency, on a network for crypto. @since 0.1.0 @category models */
export interface TopupSourceOffer {
  readonly type: TopupSourceType
  readonly currency: string
  /** The chain a crypto source is paid on (`tron`, `ethereum`); null for fiat. */
  readonly network: string | null
  readonly environments: ReadonlyArray<Environment>
}

/** A top-up as a provider starts it: our id is its idempotency key. @since 0.1.0 @category models */
export interface ProviderTopupRequest {
  readonly topupIntentId: string
  readonly environment: Environment
  readonly sourceType: TopupSourceType
  readonly sourceCurrency: string
  readonly network: string | null
  /** What the payer must pay, in source minor units. */
  readonly sourceAmount: string
  /** What the merchant is credited, in destination minor units (the simulator's magic values read it). */
  readonly destinationAmount: string
  readonly expiresAt: number
}

/** How the payer pays a top-up: a crypto deposit address, bank instructions, or nothing to show. @since 0.1.0 @category models */
export type ProviderTopupInstructions =
  | { readonly _tag: "CryptoAddress"; readonly address: string }
  | {
    readonly _tag: "BankTransfer"
    readonly bankCode: string
    readonly bankName: string
    readonly accountNumber: string
    readonly accountName: string
    readonly reference: string
  }
  | { readonly _tag: "None" }

/** A top-up the provider holds, as the later operations name it. @since 0.1.0 @category models */
export interface ProviderTopupRef {
  readonly topupIntentId: string
  readonly providerTopupId: string
  readonly environment: Environment
  readonly sourceType: TopupSourceType
  readonly sourceAmount: string
  readonly destinationAmount: string
  readonly createdAt: number
}

/** A provider's top-up capability (2.5). @since 0.1.0 @category models */
export interface ProviderTopups {
  readonly sources: ReadonlyArray<TopupSourceOffer>
  /** Start a top-up: the payer's instructions. */
  readonly start: (
    request: ProviderTopupRequest
  ) => Effect.Effect<{
    readonly providerTopupId: string
    readonly instructions: ProviderTopupInstructions
    /** A shorter payment window than asked, epoch ms (never longer). */
    readonly expiresAt?: number | undefined
  }, ProviderUnavailable>
  /** Has the payer paid (pull)? `Pending`: not yet. */
  readonly status: (topup: ProviderTopupRef) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>
  /** Review the payer's receipt of a `manual_receipt` top-up. */
  readonly submitReceipt: (topup: ProviderTopupRef, receipt: ProviderReceipt) => Effect.Effect<ProviderPaymentStatus, ProviderUnavailable>
}
