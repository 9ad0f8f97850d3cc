/**
 * The fast-check generators of hostile input, shared by the in-process fuzzer (`Fuzz.test.ts`,
 * through the fetch handler) and the socket-level crash fuzzer (`fuzz/requests.ts`):
 * strings and values people and attackers send, create bodies to mutate, query text, header
 * values of any bytes, Authorization headers and path ids. Not a test file itself.
 */
import { bankTransfer as bankTransferFor, basic, promptpayNamed } from "@tender/repo-test-support"
import fc from "fast-check"
import { keys } from "../../../core/test/fixtures.js"

export const promptpay = promptpayNamed
export const bankTransfer = { ...bankTransferFor("1234567890"), metadata: { order: "A-1" } }
export const hosted = { amount: "990", currency: "THB", country: "TH", customer: { email: "a@example.com" } }
/** Valid payment intent create bodies. */
export const bases = [promptpay, bankTransfer, hosted] as const

/** Valid top-up create bodies. */
export const topupBases = [
  { destination_amount: "100000000", destination_currency: "USDT", source: { type: "test_funding" } },
  { destination_amount: "200000", destination_currency: "THB", source: { type: "manual_receipt" }, merchant_reference: "fz", country: "TH" },
  { destination_amount: "362500", destination_currency: "THB", source: { type: "provider_gateway", provider: "simulator", currency: "ETH" } }
] as const

/** Strings people and attackers send: lone surrogates, NUL, huge, numeric-looking, JSON-looking. */
export const weirdString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "\ud800",
      "\udfff",
      "a\udc00b",
      "%00",
      "0",
      "-1",
      "01",
      "1.5",
      "1e3",
      "999999999999999999999",
      "NaN",
      "null",
      "true",
      "THB",
      "TH",
      "th_promptpay",
      "merchant",
      "hosted",
      "KBANK",
      "สมชาย",
      "a@b.co",
      "+66812345678"
    )
  },
  { weight: 1, arbitrary: fc.constantFrom(257, 501, 70_000).map((n) => "x".repeat(n)) }
)
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: weirdString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) }
)

export const fieldPaths = [
  "amount",
  "currency",
  "country",
  "checkout_mode",
  "merchant_reference",
  "customer",
  "customer.name",
  "customer.email",
  "customer.phone",
  "customer.reference",
  "customer.unknown",
  "payment_method",
  "payment_method_options",
  "payment_method_options.bank",
  "payment_method_options.account_name",
  "payment_method_options.account_number",
  "payment_method_options.name_th",
  "payment_method_options.unknown",
  "return_url",
  "device_fingerprint",
  "metadata",
  "metadata.k",
  "metadata.",
  "external_reference",
  "unknown_field"
] as const

export const topupPaths = [
  "destination_amount",
  "destination_currency",
  "source",
  "source.type",
  "source.provider",
  "source.currency",
  "source.unknown",
  "merchant_reference",
  "country",
  "unknown_field"
] as const

/** An own, enumerable property, even one named `__proto__`. */
export const define = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/** A copy of `base` with `value` set at `path` (or the field deleted); parents made objects. */
export const mutate = (base: unknown, path: string, value: unknown, remove: boolean): Record<string, unknown> => {
  const body = structuredClone(base) as Record<string, unknown>
  const parts = path.split(".")
  let at = body
  for (const part of parts.slice(0, -1)) {
    const next = at[part]
    if (typeof next !== "object" || next === null || Array.isArray(next)) define(at, part, {})
    at = at[part] as Record<string, unknown>
  }
  const last = parts[parts.length - 1]!
  if (remove) delete at[last]
  else define(at, last, value)
  return body
}

/** One to three changes at the given field paths: a weird value set, or the field removed. */
export const mutationsOf = (paths: ReadonlyArray<string>) =>
  fc.array(fc.record({ path: fc.constantFrom(...paths), value: weirdValue, remove: fc.boolean() }), { minLength: 1, maxLength: 3 })

/** Anything percent-encoded, or sent raw from a URL-ish alphabet (with broken escapes). */
export const queryText = fc.oneof(
  weirdString.map((s) => {
    try {
      return encodeURIComponent(s)
    } catch {
      return "%ED%A0%80" // a lone surrogate cannot be encoded: send its (invalid) UTF-8 bytes
    }
  }),
  fc.string({ unit: fc.constantFrom(..."%0123456789abcdefABCDEFZz,.:+-_ ~!*()'".split("")), maxLength: 30 })
)

export const listParams = ["limit", "cursor", "status", "country", "currency", "merchant_reference", "created_after", "created_before", "environment", "page"]
export const discoveryParams = ["amount", "country", "currency", "checkout_mode", "provider", "limit", "environment"]

/** A query string of some `valid` pairs, parameter `names` with odd values, and junk pairs. */
export const query = (names: ReadonlyArray<string>, valid: ReadonlyArray<readonly [string, string]>) =>
  fc.tuple(
    fc.subarray([...valid]),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), queryText), queryText), { maxLength: 4 }),
    fc.boolean()
  ).map(([keep, extra, shuffle]) => {
    const pairs = [...keep, ...extra].map(([k, v]) => `${k}=${v}`)
    if (shuffle) pairs.reverse()
    return pairs.length === 0 ? "" : "?" + pairs.join("&")
  })

/** Header values a fetch client can send: bytes 1-255 without CR and LF. */
export const headerText = (maxLength: number) =>
  fc.string({
    unit: fc.integer({ min: 1, max: 255 }).filter((c) => c !== 10 && c !== 13).map((c) => String.fromCharCode(c)),
    maxLength
  })

export const idempotencyKey = fc.option(
  fc.oneof(headerText(300), fc.uuid(), fc.constantFrom("k", "a".repeat(255), "a".repeat(256), "é", "key with spaces", "\u007f")),
  { nil: undefined }
)

export const contentType = fc.option(
  fc.tuple(
    fc.constantFrom(
      "application/json",
      "APPLICATION/JSON",
      "Application/Json",
      "application/json5",
      "application/jsonx",
      "text/plain",
      "text/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "",
      "*/*",
      "application/problem+json"
    ),
    fc.array(
      fc.oneof(
        fc.constantFrom(
          "; charset=utf-8",
          "; charset=UTF-8",
          ";charset=\"utf-8\"",
          "; charset=latin1",
          "; charset=utf8",
          "; charset=",
          "; charset",
          "; boundary=x",
          "; q=1",
          ";;",
          " ",
          "; charset=utf-8; charset=latin1"
        ),
        headerText(20).map((s) => "; " + s)
      ),
      { maxLength: 2 }
    )
  ).map(([type, params]) => type + params.join("")),
  { nil: undefined }
)

/** Authorization headers: the demo test key mostly, none, unknown keys, wrong secrets, other schemes, junk. */
export const authorization = fc.oneof(
  { weight: 4, arbitrary: fc.constant(basic(keys.demoTest)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => "Basic " + Buffer.from(s).toString("base64")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => "Basic " + Buffer.from(`${keys.demoTest.public}:${s}`).toString("base64")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => "Basic " + Buffer.from(`${s}:${keys.demoTest.secret}`).toString("base64")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Basic", "basic", "Bearer", "Digest", "", "Basic  "), headerText(60)).map(([s, v]) => `${s} ${v}`) },
  { weight: 1, arbitrary: headerText(80) }
)

export const base62 = fc.string({
  unit: fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".split("")),
  minLength: 24,
  maxLength: 24
})

/** Path ids: junk, well-formed unknown ids, broken escapes, huge, and `others` (real ids). */
export const pathId = (others: ReadonlyArray<string>) =>
  fc.oneof(
    queryText,
    base62.map((s) => "dord_" + s),
    fc.string({ maxLength: 30 }).map((s) => "dord_" + encodeURIComponent(s)),
    fc.constantFrom(...others),
    fc.constantFrom("%", "%zz", "%E0%A4%A", "..", ".", "%2F", "%00", "dord_", "dord_%F0%9F%98%80", "d".repeat(5000))
  )
