/** Collection names under a validated prefix: every collection Tender uses starts with it. */
import type { Table } from "@tender/core"
import { Effect } from "effect"

/** A prefix that passed `validatePrefix`. */
export type CollectionPrefix = string & { readonly CollectionPrefix: unique symbol }

/** The rule the prefix must meet, stated once for the check and its message. */
export const prefixPattern = /^[a-z][a-z0-9_]{0,29}$/

/** Why `prefix` is refused, or undefined when it is a valid collection prefix. */
export const prefixProblem = (prefix: string): string | undefined =>
  prefixPattern.test(prefix)
    ? undefined
    : `collectionPrefix must be 1 to 30 lowercase letters, digits or underscores, starting with a letter; got ${JSON.stringify(prefix)}`

/**
 * Lowercase letters, digits and underscores, starting with a letter, as the PostgreSQL table
 * prefix: a name that is valid in every deployment and never needs quoting. A wrong prefix is a
 * programming error of the host, so it is a defect raised before any driver call.
 */
export const validatePrefix = (prefix = "tender_"): Effect.Effect<CollectionPrefix> => {
  const problem = prefixProblem(prefix)
  return problem === undefined ? Effect.succeed(prefix as CollectionPrefix) : Effect.dieMessage(problem)
}

/** The names of every collection under one prefix. */
export const collections = (prefix: CollectionPrefix) => ({
  prefix,
  references: `${prefix}merchant_references`,
  idempotencyKeys: `${prefix}idempotency_keys`,
  merchants: `${prefix}merchants`,
  apiKeys: `${prefix}api_keys`,
  /** The host's word on routes and providers (`Merchants.setAvailability`). */
  routeAvailability: `${prefix}route_availability`,
  /** One document per balance a payout drew from: commits on one balance conflict on it (D12). */
  balanceLocks: `${prefix}balance_locks`,
  /** One marker document per data upgrade done by `setup` (the balance backfill, D12). */
  upgrades: `${prefix}upgrades`,
  /** The collection of a stored resource: `tender_payment_intents`. */
  of: (table: Table.Table<any>) => `${prefix}${table.name}`
})

/** @internal */
export type Collections = ReturnType<typeof collections>
