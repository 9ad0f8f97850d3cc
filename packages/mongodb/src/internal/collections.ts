/** Collection names under a validated prefix (`StorePrefix`): every collection Tender uses starts with it. */
import { StorePrefix } from "@tender/core"
import type { Effect } from "effect"

/** A prefix that passed `validatePrefix`. */
export type CollectionPrefix = string & { readonly CollectionPrefix: unique symbol }

/** The host's `collectionPrefix`, once it meets `StorePrefix`'s rule (a defect otherwise). */
export const validatePrefix = (prefix?: string): Effect.Effect<CollectionPrefix> => StorePrefix.validate("collectionPrefix", prefix)

/** The names of every collection under one prefix. */
export const collections = (prefix: CollectionPrefix) => ({
  prefix,
  ...StorePrefix.names(prefix),
  /** One document per balance a payout drew from: commits on one balance conflict on it (D12). */
  balanceLocks: `${prefix}balance_locks`,
  /** One marker document per data upgrade done by `setup` (the balance backfill, D12). */
  upgrades: `${prefix}upgrades`
})

/** @internal */
export type Collections = ReturnType<typeof collections>
