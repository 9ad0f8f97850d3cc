/**
 * Adyen objects as the stand-in answers with them: shaped on the examples Adyen's description
 * gives (`post-payments` and friends, in the extract), with the stand-in's own values for what
 * the lifecycle decides; notification items shaped as Adyen's Webhooks description says.
 */
import { crc16, loadExtract, type OpenApiExtract, tlv } from "@tender/testing/StandIn"
import { randomBytes } from "node:crypto"

/** The extract with the description's answer examples, as `adyen-extract.ts` writes it. */
export interface AdyenExtract extends OpenApiExtract {
  readonly apiVersion: string
  readonly webhooksVersion: string
  readonly source: { readonly repository: string; readonly commit: string; readonly checkout: string; readonly webhooks: string }
  /** Event code → the schema its notification request is checked against. */
  readonly notifications: Readonly<Record<string, string>>
  /** operationId → status → example name → value. */
  readonly examples: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>
}

/** Adyen's published description (trimmed) and its examples. */
export const extract: AdyenExtract = loadExtract<AdyenExtract>([
  // From src/ the JSON sits in src/standin; from dist/ it ships under src/ too.
  new URL("../../standin/openapi-extract.json", import.meta.url),
  new URL("../../../src/standin/openapi-extract.json", import.meta.url)
])

/** The description's example of an answer. */
export const example = (operationId: string, status: string, name: string): Record<string, unknown> => {
  const value = extract.examples[operationId]?.[status]?.[name]
  if (value === undefined) throw new Error(`the extract has no example ${name} of ${operationId} ${status}`)
  return structuredClone(value) as Record<string, unknown>
}

/** A pspReference: 16 characters of digits and capitals, as Adyen's examples are. */
export const pspReference = (): string => {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
  return [...randomBytes(16)].map((b) => alphabet[b % 36]).join("")
}

/** Adyen's error body (`ServiceError`), on the description's `generic` example. */
export const serviceError = (status: number, errorCode: string, message: string, errorType = "validation"): Record<string, unknown> => ({
  ...example("post-payments", "400", "generic"),
  status,
  errorCode,
  message,
  errorType
})

/** A dynamic Thai QR (PromptPay) payload for an amount in satang, as a bank app reads it. */
export const promptPayPayload = (amount: number, reference: string): string => {
  const merchant = tlv("00", "A000000677010112") + tlv("01", "010753600031508") + tlv("02", reference.slice(0, 20))
  const body = tlv("00", "01") + tlv("01", "12") + tlv("30", merchant) + tlv("53", "764") +
    tlv("54", (amount / 100).toFixed(2)) + tlv("58", "TH") + "6304"
  return body + crc16(body)
}
