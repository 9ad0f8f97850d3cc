/**
 * The provider contract suite: the behaviours every provider adapter must show (D10, D11),
 * written once and run against real Tender (core's services on the in-memory store, the
 * adapter installed as the merchant's only route). An adapter's test file runs it in a few
 * lines; everything provider-specific is in the driver (docs/provider-adapters.md):
 *
 * ```ts
 * import { ProviderContract } from "@tender/testing"
 * ProviderContract.suite("acme", async ({ notificationUrl }) => {
 *   const acme = await AcmeStandIn.start({ notificationUrl }) // your stand-in of the provider
 *   return {
 *     provider: AcmePay.make({ baseUrl: acme.url }),
 *     driver: { settle: (payment, outcome) => acme.settle(payment.providerPaymentId, outcome) },
 *     close: acme.close
 *   }
 * })
 * ```
 *
 * It is not a `*.test.ts` file itself, so third-party adapters can import and run it.
 *
 * @since 0.1.0
 */
import type { Provider, ProviderNotification } from "@tender/core"
import { afterAll, beforeAll, describe } from "vitest"
import { createCases } from "./internal/providerContract/createCases.js"
import { environmentCases } from "./internal/providerContract/environmentCases.js"
import { notificationCases } from "./internal/providerContract/notificationCases.js"
import { refundCases } from "./internal/providerContract/refundCases.js"
import { statusCases } from "./internal/providerContract/statusCases.js"
import { start, type World } from "./internal/providerContract/world.js"

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
  /** `false` when the adapter cannot read a payment's state at the provider and learns it by notifications alone: the cases of Tender asking it (a confirm) are skipped. Default true. */
  readonly readsStatus?: boolean | undefined
  /** The amount to create a payment with that will end in `outcome` (a simulator reads magic amounts). Default: the method's minimum. */
  readonly amount?: ((outcome: Outcome) => string) | undefined
  /** A refund the provider answered `Pending` settles at the provider (and is told as the provider tells it). Absent: refunds settle at once. */
  readonly settleRefund?: ((refund: Refund, outcome: "succeeded" | "failed") => Promise<void>) | undefined
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

/**
 * Register the contract cases for an adapter under `describe(name)`. `setup` runs once for the
 * suite; every case makes its own payments.
 *
 * @since 0.1.0 @category suites
 */
export const suite = (name: string, setup: (harness: Harness) => Promise<Subject>, options: SuiteOptions = {}): void => {
  let world: World | undefined
  const get = (): World => {
    if (world === undefined) throw new Error("the provider contract's setup did not finish")
    return world
  }
  describe(`provider contract: ${name}`, () => {
    beforeAll(async () => {
      world = await start(setup)
    }, options.timeout ?? 30_000)
    afterAll(async () => {
      await world?.close()
    })
    const timeout = options.timeout ?? 30_000
    describe("create", () => createCases(get, timeout))
    describe("status mapping", () => statusCases(get, timeout))
    describe("refunds", () => refundCases(get, timeout))
    describe("notifications", () => notificationCases(get, timeout))
    describe("environments", () => environmentCases(get, timeout))
  })
}
