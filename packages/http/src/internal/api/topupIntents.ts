/** The top-up intents group (2.5, 4.7, 4.8): one module per group, assembled in `Api.ts`. */
import { TopupIntent, TopupIntents } from "@tender/core"
import { Schema } from "effect"
import {
  action,
  authenticated,
  create,
  group,
  IdempotencyConflict,
  list,
  PaymentConfigurationUnavailable,
  ReceiptByAsset,
  retrieve,
  RoutingUnavailable,
  TopupIntentUnexpectedState
} from "./shared.js"

/** POST /topup_intents requires the key (4.7, D5): documented as required; its absence is a 400 naming `Idempotency-Key`. */
const TopupHeaders = Schema.Struct({
  "idempotency-key": Schema.String.annotations({
    description: "Required (4.7, 4.9.1): up to 255 printable ASCII characters; a UUID v4 is the default choice."
  })
})

/** Top-up intents (2.5, 4.7, 4.8, D3). @since 0.1.0 */
export class TopupIntentsGroup extends group("topupIntents", "Top-up intents: create, retrieve, list and a receipt for a manual top-up (2.5, 4.7, 4.8).")
  .add(
    // 4.9: a repeat with the same merchant_reference and fields answers the original.
    create("/topup_intents", "Create a top-up intent", {
      payload: TopupIntent.CreateParams,
      headers: TopupHeaders,
      success: TopupIntent.TopupIntent,
      identifier: "TopupIntentCreated",
      created: "The top-up, awaiting payment",
      original: "The original top-up: a repeated create with the same merchant_reference and fields (4.9)"
    })
      .addError(IdempotencyConflict)
      .addError(PaymentConfigurationUnavailable)
      .addError(RoutingUnavailable)
  )
  .add(retrieve("/topup_intents/:id", "Retrieve a top-up intent", TopupIntent.TopupIntent))
  .add(list("/topup_intents", "List top-up intents", TopupIntents.ListParams, TopupIntent.TopupIntent, "TopupIntentList"))
  .add(
    // A `manual_receipt` top-up's receipt: an asset uploaded earlier (docs/topups.md).
    action("receipt", "/topup_intents/:id/receipt", "Attach a receipt to a top-up intent", TopupIntent.TopupIntent)
      .setPayload(ReceiptByAsset)
      .addError(TopupIntentUnexpectedState)
  )
  .pipe(authenticated)
{}
