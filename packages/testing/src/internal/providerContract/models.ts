/**
 * The provider contract suite's models: what an adapter's test gives the suite (its driver and
 * subject) and what the suite hands the driver. Re-exported by `ProviderContract.ts`; kept apart so
 * the cases can name them without importing the suite that imports them.
 */
import type { Provider, ProviderNotification } from "@tender/core"

/**
 * What the payer (or the provider itself) did with a payment: `succeeded` paid, `failed`
 * declined, `processing` paid and settling, `canceled` ended unpaid by the provider (it expired,
 * or was canceled at the provider). `pending` is nothing at all (the payer has not paid).
 *
 * @since 0.1.0 @category models
 */
export type Outcome = "pending" | "succeeded" | "failed" | "processing" | "canceled"

/** A payment the provider holds, as the driver is told of it. @since 0.1.0 @category models */
export interface Payment {
  /** Tender's id (`dord_…`): the provider's idempotency key and reference. */
  readonly paymentIntentId: string
  readonly providerPaymentId: string
  readonly environment: "test" | "live"
  readonly amount: string
  readonly currency: string
}

/** A refund Tender made at the provider, as the driver is told of it. @since 0.1.0 @category models */
export interface Refund {
  /** Tender's id (`rfnd_…`): the provider's idempotency key. */
  readonly refundId: string
  readonly payment: Payment
  readonly amount: string
}

/**
 * How the test acts in the provider's world (a stand-in of its API, or the simulator's payer)
 * and reads it back. Only `settle` is required; a case that needs a missing capability is
 * skipped and says which.
 *
 * @since 0.1.0 @category models
 */
export interface Driver {
  /**
   * The payer (or the provider) settles `payment` with `outcome` in the provider's world. When
   * the provider sends notifications, it sends them to the suite's `notificationUrl` before the
   * promise resolves. `pending` is never asked for.
   */
  readonly settle: (payment: Payment, outcome: Exclude<Outcome, "pending">) => Promise<void>
  /** The outcomes `settle` can make, `pending` included when a confirm of an unpaid payment answers pending. Default all five. */
  readonly outcomes?: ReadonlyArray<Outcome> | undefined
  /** The amount to create a payment with that will end in `outcome` (a simulator reads magic amounts). Default: the method's minimum. */
  readonly amount?: ((outcome: Outcome) => string) | undefined
  /** A refund the provider answered `Pending` settles at the provider (and is told as the provider tells it). Absent: refunds settle at once. */
  readonly settleRefund?: ((refund: Refund, outcome: "succeeded" | "failed") => Promise<void>) | undefined
  /**
   * The payer pays one minor unit more than `payment` asks, in the provider's world: the provider
   * reports that amount in its answers (confirm, status, cancel) and sends its notification to the
   * suite's `notificationUrl` before the promise resolves. `amount`: what to create such a payment
   * with (a simulator's magic amount); default as for `succeeded`. Absent: the D11 guard cases are
   * skipped.
   */
  readonly overpay?: {
    readonly amount?: string | undefined
    readonly pay: (payment: Payment) => Promise<void>
  } | undefined
  /** How many payments the provider holds under Tender's id: the provider's own count, for the idempotency cases. */
  readonly paymentsAt?: ((paymentIntentId: string) => number | Promise<number>) | undefined
  /** How much of `payment` the provider has refunded or is refunding (minor units), by its own books. */
  readonly refundedAt?: ((payment: Payment) => string | Promise<string>) | undefined
  /** The provider's own codes the driver's `failed` payments carry: Tender must never show them (D11, D1). */
  readonly providerCodes?: ReadonlyArray<string> | undefined
  /** Notifications the adapter must refuse, made from a genuine one (no signature, another secret, a stale timestamp). */
  readonly forge?: ((genuine: ProviderNotification.ProviderNotificationRequest) => ReadonlyArray<ProviderNotification.ProviderNotificationRequest>) | undefined
}

/** The adapter under test and its driver, as `setup` gives them. @since 0.1.0 @category models */
export interface Subject {
  /** The adapter, an Effect one or a `defineProvider` value. */
  readonly provider: Provider.PaymentProvider
  readonly driver: Driver
  /** The environments the adapter was configured to serve (D11): it must declare and serve no other. Default: those its methods declare. */
  readonly environments?: ReadonlyArray<"test" | "live"> | undefined
  /** The public method the suite pays with. Default: the first the adapter serves in merchant mode. */
  readonly method?: string | undefined
  /**
   * Values of the method's payer fields (discovery names), for a payer family other than the Thai
   * one the suite knows (a Pix `tax_id`). Default: Thai samples, and the method's first bank.
   */
  readonly payer?: Readonly<Record<string, string>> | undefined
  /** Stops what `setup` started. */
  readonly close?: (() => Promise<void>) | undefined
}

/** What the suite gives `setup`. @since 0.1.0 @category models */
export interface Harness {
  /** Tender's notification door for the adapter under test (D11's `POST /provider_notifications/{provider}`): point the provider's notifications here. */
  readonly notificationUrl: string
}

/** @since 0.1.0 @category models */
export interface SuiteOptions {
  /** Per-case timeout in ms. Default 30,000. */
  readonly timeout?: number
}
