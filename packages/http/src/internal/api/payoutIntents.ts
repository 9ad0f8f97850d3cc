/** The payout intents group (2.7, 4.10, D8): one module per group, assembled in `Api.ts`. */
import { PayoutIntent, PayoutIntents } from "@tender/core"
import {
  action,
  authenticated,
  BalanceInsufficient,
  create,
  group,
  IdempotencyConflict,
  IdempotencyHeaders,
  list,
  PaymentConfigurationUnavailable,
  PayoutNotCancelable,
  retrieve
} from "./shared.js"

/** Payout intents (2.7, 3.3, 4.10, D3, D8). @since 0.1.0 */
export class PayoutIntentsGroup extends group("payoutIntents", "Payout intents: create, retrieve, list and cancel (2.7, 4.10, D8).")
  .add(
    // 4.9 merchant_reference rule 5: a repeat with the same fields answers the original.
    create("/payout_intents", "Create a payout intent", {
      payload: PayoutIntent.CreateParams,
      headers: IdempotencyHeaders,
      success: PayoutIntent.PayoutIntent,
      identifier: "PayoutIntentCreated",
      created: "The payout, awaiting approval",
      original: "The original payout: a repeated create with the same merchant_reference and fields (4.9)"
    })
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
      .addError(BalanceInsufficient)
  )
  .add(retrieve("/payout_intents/:id", "Retrieve a payout intent", PayoutIntent.PayoutIntent))
  .add(list("/payout_intents", "List payout intents", PayoutIntents.ListParams, PayoutIntent.PayoutIntent, "PayoutIntentList"))
  .add(
    action("cancel", "/payout_intents/:id/cancel", "Cancel a payout intent", PayoutIntent.PayoutIntent)
      .addError(PayoutNotCancelable)
  )
  .pipe(authenticated)
{}
