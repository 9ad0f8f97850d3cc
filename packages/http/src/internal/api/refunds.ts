/** The refunds group (D10): one module per group, assembled in `Api.ts`. */
import { Refund, Refunds } from "@tender/core"
import {
  AmountExceedsRefundable,
  authenticated,
  create,
  group,
  IdempotencyConflict,
  IdempotencyHeaders,
  list,
  PaymentIntentUnexpectedState,
  RefundNotSupported,
  ResourceNotFound,
  retrieve
} from "./shared.js"

/** Refunds (D10). @since 0.1.0 */
export class RefundsGroup extends group("refunds", "Refunds: all or part of a succeeded payment given back; create, retrieve and list (D10).")
  .add(
    // D10, as 4.9 for payment intents: a repeat with the same merchant_reference and fields answers the original.
    create("/refunds", "Create a refund", {
      payload: Refund.CreateParams,
      headers: IdempotencyHeaders,
      success: Refund.Refund,
      identifier: "RefundCreated",
      created: "The refund, pending at the provider",
      original: "The original refund: a repeated create with the same merchant_reference and fields (D10)"
    })
      .addError(ResourceNotFound)
      .addError(IdempotencyConflict)
      .addError(PaymentIntentUnexpectedState)
      .addError(AmountExceedsRefundable)
      .addError(RefundNotSupported)
  )
  .add(retrieve("/refunds/:id", "Retrieve a refund", Refund.Refund))
  .add(list("/refunds", "List refunds", Refunds.ListParams, Refund.Refund, "RefundList"))
  .pipe(authenticated)
{}
