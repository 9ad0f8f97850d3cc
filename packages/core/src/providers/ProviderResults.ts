/**
 * What each method of the provider port (`Provider.PaymentProvider`) may give back, as one
 * schema per method in one table, and the first problem of a result as one line naming the
 * method and the field: `acme's createPayment gave a result the port does not allow:
 * providerPaymentId is missing`. A Promise adapter's every result is checked against it
 * (`defineProvider` of @tender/server), and every adapter's notifications (D11,
 * `ProviderNotifications.receive`): a JavaScript adapter has no compiler to keep it to the port.
 *
 * @since 0.1.0
 */
import { Either, ParseResult, Schema } from "effect"
import { NextAction } from "../paymentIntents/NextAction.js"
import { NotificationAnswer, ProviderNotice } from "./ProviderNotification.js"

const Failure = { failureCode: Schema.String, failureMessage: Schema.String }

/** The port's one update type (`Provider.ProviderPaymentUpdate`): what a provider says of a payment. */
const Update = {
  Action: Schema.TaggedStruct("Action", { nextAction: NextAction }),
  Processing: Schema.TaggedStruct("Processing", {}),
  Pending: Schema.TaggedStruct("Pending", {}),
  Succeeded: Schema.TaggedStruct("Succeeded", {
    amount: Schema.optional(Schema.NullOr(Schema.String)),
    currency: Schema.optional(Schema.NullOr(Schema.String))
  }),
  Failed: Schema.TaggedStruct("Failed", Failure),
  Canceled: Schema.TaggedStruct("Canceled", {})
}

const PaymentStatus = Schema.Union(Update.Action, Update.Processing, Update.Pending, Update.Succeeded, Update.Failed, Update.Canceled)

/** A create's answer: an action, processing or failed, with the provider's id of the payment. */
const PaymentResult = Schema.Union(
  Schema.extend(Update.Action, Schema.Struct({ providerPaymentId: Schema.String })),
  Schema.extend(Update.Processing, Schema.Struct({ providerPaymentId: Schema.String })),
  Schema.extend(Update.Failed, Schema.Struct({ providerPaymentId: Schema.NullOr(Schema.String) }))
)

const RefundStatus = Schema.Union(
  Schema.TaggedStruct("Succeeded", {}),
  Schema.TaggedStruct("Failed", Failure),
  Schema.TaggedStruct("Pending", {})
)

/**
 * The result each method of the port may give, by method. A change of the port's result types
 * is a change of this table.
 *
 * @since 0.1.0 @category schemas
 */
export const results = {
  createPayment: PaymentResult,
  confirmPayment: PaymentStatus,
  getPaymentStatus: PaymentStatus,
  submitReceipt: PaymentStatus,
  sendPayout: PaymentStatus,
  cancelPayment: PaymentStatus,
  refund: RefundStatus,
  parseNotification: Schema.Struct({ notices: Schema.Array(ProviderNotice), answer: NotificationAnswer })
} as const

/** @since 0.1.0 @category models */
export type Method = keyof typeof results

/** A path as JavaScript writes it: `notices[0].environment`. */
const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((k, i) => typeof k === "number" || /^\d+$/.test(String(k)) ? `[${String(k)}]` : `${i === 0 ? "" : "."}${String(k)}`).join("")

/**
 * The first problem of `result` as the answer of `provider`'s `method`, one line naming the
 * field (`notices[0].environment is missing`); undefined when the port allows it.
 *
 * @since 0.1.0 @category checks
 */
export const problem = (provider: string, method: Method, result: unknown): string | undefined => {
  const checked = Schema.validateEither(results[method] as Schema.Schema<unknown>)(result)
  if (Either.isRight(checked)) return undefined
  const issues = ParseResult.ArrayFormatter.formatErrorSync(checked.left)
  const issue = issues[0]
  const where = issue === undefined || issue.path.length === 0 ? "the result" : pathText(issue.path)
  // A result that is no object at all says so without the schema's whole text.
  const what = issue === undefined
    ? "is invalid"
    : issue.path.length === 0 && issue._tag === "Type"
    ? `must be an object with a _tag of the port, got ${shown(result)}`
    : merged(issues.filter((i) => pathText(i.path) === pathText(issue.path)).map((i) => i.message))
  return `${provider}'s ${method} gave a result the port does not allow: ${where} ${what}`
}

/** A union's issues at one field as one: `Expected "test" | "live" | null, actual undefined`. */
const merged = (messages: ReadonlyArray<string>): string => {
  const parts = messages.map((m) => /^Expected (.*), actual (.*)$/s.exec(m))
  if (messages.length < 2 || parts.some((p) => p === null)) return messages[0]!
  return `Expected ${parts.map((p) => p![1]).join(" | ")}, actual ${parts[0]![2]}`
}

const shown = (u: unknown): string =>
  u === null || u === undefined || typeof u !== "object" ? String(typeof u === "string" ? JSON.stringify(u) : u) : Array.isArray(u) ? "an array" : "an object"
