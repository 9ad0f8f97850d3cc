/**
 * The shared value formats of the specification (part 2, part 8, D4).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Attach a message that replaces every lower-level one. @since 0.1.0 */
export const withMessage = <S extends Schema.Schema.Any>(schema: S, message: string): S =>
  schema.annotations({ message: () => ({ message, override: true }) }) as S

/** Amounts: positive integer strings in minor units, no leading zero, at most 18 digits (2.1, 8, D4). @since 0.1.0 */
export const Amount = withMessage(
  Schema.String.pipe(Schema.pattern(/^[1-9]\d{0,17}$/)),
  "must be a positive integer string in minor units, without leading zeros, of at most 18 digits"
).annotations({ identifier: "Amount", examples: ["150000"] })

/** ISO 4217 code or a 3-6 letter token symbol, uppercase (2.1). @since 0.1.0 */
export const Currency = withMessage(
  Schema.String.pipe(Schema.pattern(/^[A-Z]{3,6}$/)),
  "must be 3 to 6 uppercase letters (ISO 4217 code or token symbol)"
).annotations({ identifier: "Currency", examples: ["THB"] })

/** ISO 3166-1 alpha-2 (2.1). @since 0.1.0 */
export const Country = withMessage(
  Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/)),
  "must be an uppercase ISO 3166-1 alpha-2 code"
).annotations({ identifier: "Country", examples: ["TH"] })

/** `test` or `live`, stamped by the API key (5.3). @since 0.1.0 */
export const Environment = Schema.Literal("test", "live").annotations({ identifier: "Environment" })
/** @since 0.1.0 */
export type Environment = typeof Environment.Type

/** Who presents the payer-facing step (part 1). @since 0.1.0 */
export const CheckoutMode = withMessage(Schema.Literal("hosted", "merchant"), "must be one of: hosted, merchant")
  .annotations({ identifier: "CheckoutMode" })
/** @since 0.1.0 */
export type CheckoutMode = typeof CheckoutMode.Type

const unstorable = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\u0000/

/**
 * Whether a string is text every store keeps exactly: well-formed Unicode (a JSON body can
 * carry a lone surrogate such as `"\ud800"`, which drivers silently replace) and no NUL
 * (which PostgreSQL text cannot hold). Free-text request fields must pass it (D1: a 400,
 * never a 500 or two different values stored as one).
 *
 * @since 0.1.0
 */
export const isStorableText = (s: string): boolean => !unstorable.test(s)

/** A string that passes `isStorableText`. @since 0.1.0 */
export const StorableText = Schema.String.pipe(Schema.filter(isStorableText))

/**
 * The number of characters of a string as JSON Schema's `maxLength` counts them, and as D4's
 * "characters" reads: Unicode code points, a surrogate pair (an emoji) one, not two UTF-16 units.
 *
 * @since 0.1.0
 */
export const characterCount = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/**
 * At most `max` characters, counted by `characterCount` (`Schema.maxLength` counts UTF-16 units,
 * so 129 emoji broke a limit of 256 the OpenAPI document, counting code points, allows).
 *
 * @since 0.1.0
 */
export const maxCharacters = (max: number) => <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(Schema.filter((s) => s.length <= max || characterCount(s) <= max, {
    title: `maxLength(${max})`,
    description: `a string of at most ${max} character(s)`,
    jsonSchema: { maxLength: max }
  }))

/** A `merchant_reference`: 1 to 256 characters (D4). @since 0.1.0 */
export const MerchantReference = withMessage(
  StorableText.pipe(Schema.minLength(1), maxCharacters(256)),
  "must be a string of 1 to 256 characters (well-formed Unicode, no NUL)"
)

/** A bounded non-empty string. @since 0.1.0 */
export const BoundedString = (max: number) =>
  withMessage(StorableText.pipe(Schema.minLength(1), maxCharacters(max)), `must be a string of 1 to ${max} characters (well-formed Unicode, no NUL)`)

/** ISO 8601 UTC with milliseconds and `Z`, as every time on the wire (D4). @since 0.1.0 */
export const Timestamp = Schema.String.annotations({
  identifier: "Timestamp",
  description: "ISO 8601 UTC date-time with milliseconds and Z",
  examples: ["2026-11-22T08:15:30.123Z"]
})

/** The last millisecond of year 9999: beyond it (and before 1970) `toISOString` writes the year otherwise. */
const maxFourDigitYearMillis = 253_402_300_799_999

const pad2 = (n: number) => (n < 10 ? "0" : "") + n

/**
 * Render epoch milliseconds as a D4 timestamp: what `new Date(millis).toISOString()` gives,
 * computed with integer arithmetic (the civil date of a day count, H. Hinnant's algorithm). A list
 * page renders two per resource, and the `Date` round trip was the largest function of Tender's
 * own in a memory list page's profile. Outside 1970 to 9999, and
 * for a fraction of a millisecond, `toISOString` itself; `Schemas.test.ts` holds the two equal.
 *
 * @since 0.1.0
 */
export const formatTimestamp = (millis: number): string => {
  if (!(Number.isInteger(millis) && millis >= 0 && millis <= maxFourDigitYearMillis)) return new Date(millis).toISOString()
  const days = Math.floor(millis / 86_400_000)
  let rest = millis - days * 86_400_000
  // Days since 0000-03-01, in 400-year eras of 146,097 days; the year starts in March so that
  // February's leap day falls at its end.
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const m = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * m + 2) / 5) + 1
  const month = m < 10 ? m + 3 : m - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  const ms = rest - seconds * 1000
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${String(ms).padStart(3, "0")}Z`
}

const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysInMonth = (year: number, month: number): number => month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** A date-time with an explicit offset (4.3 `created_after` / `created_before`), decoded to epoch ms. @since 0.1.0 */
export const DateTimeWithOffset = withMessage(
  Schema.String.pipe(
    Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/),
    // Date.parse rolls a day past the month's end over (2026-02-30 -> 2026-03-02): refuse it instead.
    Schema.filter((s) => !Number.isNaN(Date.parse(s)) && Number(s.slice(8, 10)) <= daysInMonth(Number(s.slice(0, 4)), Number(s.slice(5, 7))))
  ),
  "must be an ISO 8601 date-time with an offset, such as 2026-11-22T08:15:30Z"
)
