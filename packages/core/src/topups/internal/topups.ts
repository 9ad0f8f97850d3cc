/**
 * What the top-up intent operations and their durable tasks share: the payment window and
 * poll interval, the writes of a checked change (with its D7 events), the
 * credited amount of a paid top-up, and the bound on a provider call.
 */
import { BigDecimal, Duration, Effect } from "effect"
import * as Event from "../../events/Event.js"
import { Write } from "../../storage/Storage.js"
import * as Money from "../Money.js"
import type { Status, TopupIntentRecord } from "../TopupIntent.js"
import { canTransition, statusEvents, table, toResource } from "../TopupIntent.js"

/** How long a top-up waits for its payment unless its provider says less (`TopupIntents.paymentWindow`). */
export const paymentWindow = Duration.hours(1)

/** How often a top-up's provider is asked whether the payer paid (`TopupIntents.pollEvery`). */
export const pollEvery = Duration.seconds(5)

/** The writes of a change: the versioned update and its D7 events. A transition not allowed is a defect. */
export const change = (before: TopupIntentRecord, patch: Partial<TopupIntentRecord> & { readonly status: Status }, now: number) =>
  Effect.gen(function*() {
    if (!canTransition(before.status, patch.status)) {
      return yield* Effect.die(new Error(`no top-up transition from ${before.status} to ${patch.status}`))
    }
    const record: TopupIntentRecord = { ...before, ...patch, updatedAt: Math.max(now, before.updatedAt), version: before.version + 1 }
    const events = yield* Event.writes(record, "topup_intent", toResource(record), statusEvents(record.status))
    return { record, writes: [Write.update(table, record, before.version), ...events] as ReadonlyArray<Write> }
  })

/** The exact inputs of a stored top-up's quote, read back from its record. */
export const quoteInput = (r: TopupIntentRecord): Money.QuoteInput => ({
  destinationAmount: BigInt(r.destinationAmount),
  destinationDigits: Money.digitsOf(r.destinationCurrency)!,
  sourceDigits: Money.digitsOf(r.sourceCurrency)!,
  rate: BigDecimal.unsafeFromString(r.fxRate),
  spread: BigDecimal.unsafeFromString(r.fxSpread),
  feeRate: BigDecimal.unsafeFromString(r.feeRate),
  feeFixed: BigInt(r.feeFixed)
})

/** The patch of a paid top-up: credited by `Money.credited` for the source amount received. */
export const succeededPatch = (r: TopupIntentRecord) => {
  const input = quoteInput(r)
  const credited = Money.credited(input, {
    convertedAmount: BigInt(r.convertedAmount),
    spreadAmount: BigInt(r.spreadAmount),
    feeAmount: BigInt(r.feeAmount),
    sourceAmount: BigInt(r.sourceAmount)
  }, BigInt(r.sourceAmount))
  return { status: "succeeded" as const, creditedAmount: credited.toString(), nextAction: null }
}
