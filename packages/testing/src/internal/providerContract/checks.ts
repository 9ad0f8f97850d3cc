/**
 * What several provider-contract cases check: a failure is told in Tender's words (D11, D1),
 * and the driver's optional readings of the provider's own books.
 */
import { assert } from "vitest"
import type { Payment } from "./models.js"
import type { World } from "./world.js"

/** Tender's failure codes are lower-case words joined by underscores. */
const tenderCode = /^[a-z]+(_[a-z]+)*$/

/**
 * A failure shown to merchants is Tender's: a code of Tender's form and a message, and none of
 * the provider's own codes the driver made the failure with anywhere in what Tender shows.
 */
export const tendersWords = (w: World, shown: string, failureCode: string | null, failureMessage: string | null) => {
  assert.match(
    failureCode ?? "",
    tenderCode,
    `the adapter gave failure_code ${String(failureCode)}, not one of Tender's codes (failureFor maps a provider's codes to Tender's)`
  )
  assert.isNotEmpty(failureMessage ?? "", "the adapter gave a failure no failureMessage")
  for (const own of w.driver.providerCodes ?? []) {
    assert.notInclude(shown, own, `the adapter passed the provider's own code ${own} through to what Tender shows: map it to one of Tender's (failureFor)`)
  }
}

/** The provider's own count of payments under Tender's id, when the driver can read it. */
export const paymentsAt = async (w: World, paymentIntentId: string): Promise<number | undefined> =>
  w.driver.paymentsAt === undefined ? undefined : await w.driver.paymentsAt(paymentIntentId)

/** D11 the provider holds exactly one payment under Tender's id, when the driver can read its books. */
export const holdsOnePayment = async (w: World, paymentIntentId: string) => {
  const held = await paymentsAt(w, paymentIntentId)
  if (held !== undefined) {
    assert.strictEqual(
      held,
      1,
      "the provider holds more than one payment under one Tender id: the adapter does not send paymentIntentId as its idempotency key"
    )
  }
}

/** What the provider refunded of a payment by its own books, when the driver can read it. */
export const refundedAt = async (w: World, payment: Payment): Promise<string | undefined> =>
  w.driver.refundedAt === undefined ? undefined : String(await w.driver.refundedAt(payment))
