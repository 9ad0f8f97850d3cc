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
import { afterAll, beforeAll, describe } from "vitest"
import { capabilityCases } from "./internal/providerContract/capabilityCases.js"
import { createCases } from "./internal/providerContract/createCases.js"
import { environmentCases } from "./internal/providerContract/environmentCases.js"
import { guardCases } from "./internal/providerContract/guardCases.js"
import type { Harness, Subject, SuiteOptions } from "./internal/providerContract/models.js"
import { notificationCases } from "./internal/providerContract/notificationCases.js"
import { refundCases } from "./internal/providerContract/refundCases.js"
import { statusCases } from "./internal/providerContract/statusCases.js"
import { start, type World } from "./internal/providerContract/world.js"

export type { Driver, Harness, Outcome, Payment, Refund, Subject, SuiteOptions } from "./internal/providerContract/models.js"

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
    describe("amount guard, every source", () => guardCases(get, timeout))
    describe("environments", () => environmentCases(get, timeout))
    describe("capabilities", () => capabilityCases(get, timeout))
  })
}
