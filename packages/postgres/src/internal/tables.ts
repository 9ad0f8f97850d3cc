/** Table names under a validated prefix (`StorePrefix`). */
import { StorePrefix } from "@tender/core"
import type { Effect } from "effect"

export type TablePrefix = string & { readonly TablePrefix: unique symbol }

/** The host's `tablePrefix`, once it meets `StorePrefix`'s rule (a defect otherwise). */
export const validatePrefix = (prefix?: string): Effect.Effect<TablePrefix> => StorePrefix.validate("tablePrefix", prefix)

export const tables = (prefix: TablePrefix) => ({
  migrations: `${prefix}migrations`,
  ...StorePrefix.names(prefix),
  /** The trigger function that notifies `directoryChannel` (migration 0013). */
  directoryChanged: `${prefix}directory_changed`,
  /** The channel a change to merchants, keys or route availability notifies. */
  directoryChannel: `${prefix}directory`,
  /** The function that aborts a commit whose guard touched no row (migration 0002). */
  guardFailed: `${prefix}guard_failed`
})
export type Tables = ReturnType<typeof tables>
