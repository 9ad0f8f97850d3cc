/**
 * D11 with D1: any notification whose items are signed with the HMAC key is answered 2xx or 4xx
 * by Tender's receive, whatever their shape: never a 5xx. A fast-check property over mutated
 * Adyen items (each signed with the SDK's own `hmacValidator`, as Adyen signs), any JSON and any
 * text.
 */
import Adyen from "@adyen/api-library"
import { mutated, signedBodiesAnswered } from "@tender/repo-test-support/signed-notifications"
import fc from "fast-check"
import { assert, it } from "vitest"
import { adyen } from "../src/AdyenProvider.js"
import { HMAC_KEY, MERCHANT_ACCOUNT } from "./harness.js"

const provider = adyen({ apiKey: "AQE_test_api_key", merchantAccount: MERCHANT_ACCOUNT, hmacKey: HMAC_KEY, apiBase: "https://127.0.0.1:9" })
const signer = new Adyen.hmacValidator()

/** The item with its `additionalData.hmacSignature` as Adyen computes it; as it is where the SDK cannot sign it. */
const signed = (item: unknown): unknown => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item
  try {
    const additionalData = (item as { additionalData?: unknown }).additionalData
    const extra = typeof additionalData === "object" && additionalData !== null ? additionalData : {}
    return { ...item, additionalData: { ...extra, hmacSignature: signer.calculateHmac(item as never, HMAC_KEY) } }
  } catch {
    return item
  }
}

const item = {
  pspReference: "PSP0001",
  originalReference: "PSP0000",
  merchantReference: "dord_test000000000000000000001",
  merchantAccountCode: MERCHANT_ACCOUNT,
  eventCode: "AUTHORISATION",
  success: "true",
  reason: "12:Not enough balance",
  amount: { value: 150000, currency: "THB" }
}

it(
  "D11 D1 property: any Adyen notification whose items are signed with the HMAC key (mutated items, any JSON, any text) -> 2xx or 4xx, never a 5xx",
  async () => {
    const codes = fc.constantFrom("AUTHORISATION", "CANCELLATION", "OFFER_CLOSED", "REFUND", "REFUND_FAILED", "CAPTURE", "REPORT_AVAILABLE")
    const items = codes.chain((eventCode) => mutated({ ...item, eventCode }).map(signed))
    const notifications = fc.record({
      live: fc.constantFrom<unknown>("false", "true", true, null),
      notificationItems: fc.array(items.map((i) => ({ NotificationRequestItem: i })), { minLength: 1, maxLength: 3 })
    })
    // Unmutated items too, so every run also shows signed bodies stored (most mutations make an item that is not Adyen's).
    const wellFormed = codes.map((eventCode) =>
      JSON.stringify({ live: "false", notificationItems: [{ NotificationRequestItem: signed({ ...item, eventCode }) }] })
    )
    const bodies = fc.oneof(
      { weight: 2, arbitrary: wellFormed },
      { weight: 6, arbitrary: notifications.map((n) => JSON.stringify(n)) },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.string() }
    )
    const tally = await signedBodiesAnswered({ provider, sign: () => ({ "content-type": "application/json" }), bodies, numRuns: 400 })
    assert.isAbove(tally.stored, 0)
    assert.isAbove(tally.refused, 0)
  },
  120_000
)
