/**
 * The simulated payer (D9): what a payer does outside our page — scans the QR code, makes the
 * transfer, approves or declines at the bank — for an intent the simulator serves in the `test`
 * environment, so a new user completes a hosted payment in the browser. Each action reaches
 * the intent the way the real event would: a scan or a bank approval as a confirmation at the
 * provider (a durable task; magic amounts apply as for 4.5), a transfer as its slip uploaded as
 * the receipt (4.4), a decline as the provider's signed notification, received at the door every
 * provider's notifications take (`ProviderNotifications.receive`, D11) and applied by its task.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as HostedPayment from "./HostedPayment.js"
import type { PaymentIntentRecord } from "./PaymentIntent.js"
import { ProviderRegistry } from "./Provider.js"
import * as ProviderNotifications from "./ProviderNotifications.js"
import * as Simulator from "./Simulator.js"
import { Storage, Write } from "./Storage.js"
import * as Task from "./Task.js"

/** The payer actions the simulator knows. @since 0.1.0 @category models */
export type PayerAction = "scan_done" | "transfer_made" | "bank_approved" | "bank_declined"

/**
 * The actions a payer can take now on `intent`: none outside `test` (D9: live keys never reach
 * the simulator), none for another provider, none once no payer action remains.
 *
 * @since 0.1.0
 */
export const actionsFor = (intent: PaymentIntentRecord): ReadonlyArray<PayerAction> => {
  if (intent.environment !== "test" || intent.providerCode !== Simulator.code || intent.status !== "requires_action") return []
  // A hosted intent's action at the provider is `hostedAction`; a merchant-mode intent's is `next_action`.
  switch ((intent.hostedAction ?? (intent.checkoutMode === "merchant" ? intent.nextAction : null))?.type) {
    case "display_qr_code":
      return ["scan_done"]
    case "display_bank_transfer_instructions":
      return intent.receipt?.status === "required" ? ["transfer_made"] : []
    case "redirect_to_url":
      return ["bank_approved", "bank_declined"]
    case undefined:
      return []
  }
}

/** A transfer slip for `transfer_made`: a 1x1 white PNG, which the simulator accepts as any receipt. */
const sampleSlip = Uint8Array.from(
  Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC", "base64")
)

/**
 * Perform `action` on `intent`. `false` when the action is not available for it now
 * (`actionsFor`), so the caller answers as for any stale form.
 *
 * @since 0.1.0
 */
export const act = (intent: PaymentIntentRecord, action: PayerAction) =>
  Effect.gen(function*() {
    if (!actionsFor(intent).includes(action)) return false
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    switch (action) {
      case "scan_done":
      case "bank_approved": {
        const task = yield* Task.make({
          merchantId: intent.merchantId,
          environment: intent.environment,
          kind: "payment_intent.confirm",
          resourceId: intent.id,
          dueAt: now,
          now
        })
        yield* storage.commit([Write.insert(Task.table, task)])
        return true
      }
      case "transfer_made": {
        const answer = yield* HostedPayment.submitReceipt(intent, sampleSlip)
        return answer.status < 400
      }
      case "bank_declined": {
        // The bank tells the provider, and the provider tells Tender: a signed notification
        // through the door every provider's notifications take (D11).
        const simulator = (yield* ProviderRegistry).get(Simulator.code)
        if (!Simulator.isSimulator(simulator)) return false
        const request = yield* simulator.payerNotification({
          id: `evt_payer_${intent.id}_declined`,
          type: "payment.failed",
          livemode: false,
          data: {
            payment_intent: intent.id,
            provider_payment_id: intent.providerPaymentId!,
            failure_code: "payment_declined",
            failure_message: "The payer declined the payment at their bank."
          }
        })
        yield* ProviderNotifications.receive(Simulator.code, request).pipe(
          Effect.catchTags({
            // The simulator signs with its own secret: a refusal is a defect, never the payer's.
            NotificationUnverified: (e) => Effect.dieMessage(`the simulator's own notification was refused: ${e.reason}`),
            UnknownNotificationProvider: (e) => Effect.dieMessage(`the simulator takes no notifications: ${e.provider}`)
          })
        )
        return true
      }
    }
  })
