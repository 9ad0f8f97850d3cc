/**
 * `next_action` of a payment intent: a closed union discriminated by `type` (2.3).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Timestamp } from "../resources/Schemas.js"

/** Open a URL with a browser GET; in hosted mode a signed hosted-checkout URL. @since 0.1.0 */
export const RedirectToUrl = Schema.Struct({
  type: Schema.Literal("redirect_to_url"),
  url: Schema.String,
  expires_at: Timestamp
}).annotations({ identifier: "RedirectToUrl" })

/** Render a QR code; each field is present only when available. @since 0.1.0 */
export const DisplayQrCode = Schema.Struct({
  type: Schema.Literal("display_qr_code"),
  qr_data: Schema.optional(Schema.String),
  qr_image_url: Schema.optional(Schema.String),
  qr_image_data_url: Schema.optional(Schema.String),
  expires_at: Schema.optional(Timestamp)
}).annotations({ identifier: "DisplayQrCode" })

/** Show bank, account and reference values (field names settled in docs/errors-and-formats.md). @since 0.1.0 */
export const DisplayBankTransferInstructions = Schema.Struct({
  type: Schema.Literal("display_bank_transfer_instructions"),
  bank_code: Schema.String,
  bank_name: Schema.String,
  account_number: Schema.String,
  account_name: Schema.String,
  reference: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  expires_at: Schema.optional(Timestamp),
  requires_receipt: Schema.Boolean
}).annotations({ identifier: "DisplayBankTransferInstructions" })

/** The closed union of 2.3. @since 0.1.0 */
export const NextAction = Schema.Union(RedirectToUrl, DisplayQrCode, DisplayBankTransferInstructions)
  .annotations({ identifier: "NextAction" })
/** @since 0.1.0 */
export type NextAction = typeof NextAction.Type

/** Every `next_action.type`. @since 0.1.0 */
export const NextActionType = Schema.Literal("redirect_to_url", "display_qr_code", "display_bank_transfer_instructions")
/** @since 0.1.0 */
export type NextActionType = typeof NextActionType.Type
