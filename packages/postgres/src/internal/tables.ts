/** Table names under a validated prefix. */
import type { Table } from "@tender/core"
import { Effect } from "effect"

export type TablePrefix = string & { readonly TablePrefix: unique symbol }

/** Lowercase letters, digits and underscores, starting with a letter: a safe identifier prefix. */
export const validatePrefix = (prefix = "tender_"): Effect.Effect<TablePrefix> =>
  /^[a-z][a-z0-9_]{0,29}$/.test(prefix)
    ? Effect.succeed(prefix as TablePrefix)
    : Effect.dieMessage(`tablePrefix must be 1 to 30 lowercase letters, digits or underscores, starting with a letter; got ${JSON.stringify(prefix)}`)

export const tables = (prefix: TablePrefix) => ({
  migrations: `${prefix}migrations`,
  references: `${prefix}merchant_references`,
  idempotencyKeys: `${prefix}idempotency_keys`,
  /** The directory's tables (`Merchants.tables`), named here for the migrations that made them. */
  merchants: `${prefix}merchants`,
  apiKeys: `${prefix}api_keys`,
  /** The host's word on routes and providers (migration 0013, keyed by one id since 0028). */
  routeAvailability: `${prefix}route_availability`,
  /** The trigger function that notifies `directoryChannel` (migration 0013). */
  directoryChanged: `${prefix}directory_changed`,
  /** The channel a change to merchants, keys or route availability notifies. */
  directoryChannel: `${prefix}directory`,
  /** The function that aborts a commit whose guard touched no row (migration 0002). */
  guardFailed: `${prefix}guard_failed`,
  /** The table of a stored resource: `tender_payment_intents`. */
  of: (table: Table.Table<any>) => `${prefix}${table.name}`
})
export type Tables = ReturnType<typeof tables>
