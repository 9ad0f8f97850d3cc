/**
 * D11 with D1: any body signed with the simulator's notification secret is answered 2xx or 4xx
 * by Tender's receive, whatever its shape: never a 5xx (a NUL in an event id, which PostgreSQL
 * refuses, is a 400 on every store). A fast-check property over mutated simulator events, any
 * JSON and any text.
 */
import { Simulator } from "@tender/core"
import { mutated, mutatedEventsAnswered } from "@tender/repo-test-support/signed-notifications"
import fc from "fast-check"
import { it } from "vitest"

const provider = Simulator.make()
const sign = (body: string) => ({ [Simulator.signatureHeader]: Simulator.signNotification({ body }) })

const event = {
  id: "evt_sim_1",
  type: "payment.succeeded",
  livemode: false,
  data: {
    payment_intent: "dord_test000000000000000000001",
    provider_payment_id: "sim_1",
    amount: "150000",
    currency: "THB",
    refund: "rfnd_1",
    provider_refund_id: "sim_r1",
    payout_intent: "payout_1",
    provider_payout_id: "sim_p1",
    failure_code: "payment_declined",
    failure_message: "declined"
  }
}

it("D11 D1 property: any body signed with the simulator's secret (mutated events, any JSON, any text) -> 2xx or 4xx, never a 5xx", async () => {
  const types = fc.constantFrom(
    "payment.succeeded",
    "payment.processing",
    "payment.failed",
    "refund.succeeded",
    "refund.failed",
    "payout.succeeded",
    "payout.failed",
    "other"
  )
  const events = types.chain((type) => mutated({ ...event, type }))
  await mutatedEventsAnswered({
    provider,
    sign,
    events,
    extra: [{ weight: 1, arbitrary: fc.constant(JSON.stringify({ ...event, id: "evt\u0000" })) }]
  })
}, 120_000)
