/**
 * The port's results, one schema per method: a result the port does not allow is named in one
 * line, the method and the field, never the schema's whole text.
 */
import { describe, expect, it } from "vitest"
import { ProviderResults } from "../src/index.js"

const notice = {
  _tag: "PaymentSucceeded",
  eventId: "evt_1",
  providerPaymentId: "p_1",
  paymentIntentId: null,
  amount: null,
  currency: null,
  environment: "test"
}
const answer = { status: 200, contentType: "application/json", body: "{}" }

describe("ProviderResults: every method's result against the port", () => {
  it("D11 a result the port allows passes, for every method of the port", () => {
    const good: Record<ProviderResults.Method, unknown> = {
      createPayment: { _tag: "Processing", providerPaymentId: "p_1" },
      confirmPayment: { _tag: "Succeeded" },
      getPaymentStatus: { _tag: "Failed", failureCode: "payment_declined", failureMessage: "The payment was declined." },
      submitReceipt: { _tag: "Pending" },
      sendPayout: { _tag: "Processing" },
      cancelPayment: { _tag: "Succeeded" },
      refund: { _tag: "Pending" },
      parseNotification: { notices: [notice], answer }
    }
    for (const [method, result] of Object.entries(good)) {
      expect(ProviderResults.problem("acme", method as ProviderResults.Method, result), method).toBeUndefined()
    }
  })

  it("D11 a result the port does not allow is one line naming the method and the field, for every method", () => {
    const bad: ReadonlyArray<readonly [ProviderResults.Method, unknown, string]> = [
      ["createPayment", { _tag: "Processing" }, "acme's createPayment gave a result the port does not allow: providerPaymentId is missing"],
      [
        "createPayment",
        { _tag: "Action", providerPaymentId: "p_1", nextAction: { type: "display_qr_code", qr_data: 5 } },
        "acme's createPayment gave a result the port does not allow: nextAction.qr_data Expected string | undefined, actual 5"
      ],
      [
        "createPayment",
        undefined,
        "acme's createPayment gave a result the port does not allow: the result must be an object with a _tag of the port, got undefined"
      ],
      [
        "confirmPayment",
        { _tag: "Paid" },
        `acme's confirmPayment gave a result the port does not allow: _tag Expected "Action" | "Processing" | "Pending" | "Succeeded" | "Failed" | "Canceled", actual "Paid"`
      ],
      [
        "getPaymentStatus",
        { _tag: "Failed", failureCode: "payment_declined" },
        "acme's getPaymentStatus gave a result the port does not allow: failureMessage is missing"
      ],
      [
        "submitReceipt",
        "Succeeded",
        `acme's submitReceipt gave a result the port does not allow: the result must be an object with a _tag of the port, got "Succeeded"`
      ],
      [
        "sendPayout",
        { _tag: "Failed", failureCode: 1, failureMessage: "x" },
        "acme's sendPayout gave a result the port does not allow: failureCode Expected string, actual 1"
      ],
      [
        "cancelPayment",
        { _tag: "AlreadyPaid" },
        `acme's cancelPayment gave a result the port does not allow: _tag Expected "Action" | "Processing" | "Pending" | "Succeeded" | "Failed" | "Canceled", actual "AlreadyPaid"`
      ],
      [
        "refund",
        { _tag: "Processing" },
        `acme's refund gave a result the port does not allow: _tag Expected "Succeeded" | "Failed" | "Pending", actual "Processing"`
      ],
      [
        "parseNotification",
        { notices: [{ ...notice, environment: undefined }], answer },
        "acme's parseNotification gave a result the port does not allow: notices[0].environment Expected \"test\" | \"live\" | null, actual undefined"
      ],
      ["parseNotification", {
        notices: [{ _tag: "PaymentSucceeded", eventId: "evt_1", providerPaymentId: "p_1", paymentIntentId: null, amount: null, currency: null }],
        answer
      }, "acme's parseNotification gave a result the port does not allow: notices[0].environment is missing"],
      ["parseNotification", { notices: [] }, "acme's parseNotification gave a result the port does not allow: answer is missing"]
    ]
    for (const [method, result, line] of bad) expect(ProviderResults.problem("acme", method, result)).toBe(line)
  })
})
