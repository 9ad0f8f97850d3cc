/**
 * The prefix every storage adapter puts on the names of its tables or collections
 * (`tender_payment_intents`), and the names every adapter shares under it. One rule for all
 * adapters: a prefix valid in one deployment is valid in every store, and never needs quoting.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Table } from "./Table.js"

/** The prefix when the host sets none. @since 0.1.0 @category constants */
export const defaultPrefix = "tender_"

/** 1 to 30 lowercase letters, digits or underscores, starting with a letter. @since 0.1.0 @category constants */
export const pattern = /^[a-z][a-z0-9_]{0,29}$/

/** Why `prefix` is refused as the host's `option`, or undefined when it is valid. @since 0.1.0 */
export const problem = (option: string, prefix: string): string | undefined =>
  pattern.test(prefix)
    ? undefined
    : `${option} must be 1 to 30 lowercase letters, digits or underscores, starting with a letter; got ${JSON.stringify(prefix)}`

/**
 * `prefix` (default `defaultPrefix`) once it is valid. A wrong prefix is a programming error of
 * the host, so it is a defect, raised before any driver call, naming its `option`.
 *
 * @since 0.1.0
 */
export const validate = <P extends string>(option: string, prefix: string = defaultPrefix): Effect.Effect<P> => {
  const refused = problem(option, prefix)
  return refused === undefined ? Effect.succeed(prefix as P) : Effect.dieMessage(refused)
}

/**
 * The names every adapter keeps under `prefix`: the stores of the claims, merchants and keys,
 * and of each stored resource.
 *
 * @since 0.1.0
 */
export const names = (prefix: string) => ({
  references: `${prefix}merchant_references`,
  idempotencyKeys: `${prefix}idempotency_keys`,
  merchants: `${prefix}merchants`,
  apiKeys: `${prefix}api_keys`,
  /** The host's word on routes and providers (`Merchants.setAvailability`). */
  routeAvailability: `${prefix}route_availability`,
  /** The table or collection of a stored resource: `tender_payment_intents`. */
  of: (table: Table<any>) => `${prefix}${table.name}`
})
