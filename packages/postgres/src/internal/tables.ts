/** Table names under a validated prefix. */
import { Effect } from "effect"

export type TablePrefix = string & { readonly TablePrefix: unique symbol }

/** Lowercase letters, digits and underscores, starting with a letter: a safe identifier prefix. */
export const validatePrefix = (prefix = "tender_"): Effect.Effect<TablePrefix> =>
  /^[a-z][a-z0-9_]{0,29}$/.test(prefix)
    ? Effect.succeed(prefix as TablePrefix)
    : Effect.dieMessage(`tablePrefix must be 1 to 30 lowercase letters, digits or underscores, starting with a letter; got ${JSON.stringify(prefix)}`)

export const tables = (prefix: TablePrefix) => ({
  migrations: `${prefix}migrations`,
  paymentIntents: `${prefix}payment_intents`,
  references: `${prefix}merchant_references`,
  idempotencyKeys: `${prefix}idempotency_keys`,
  merchants: `${prefix}merchants`,
  apiKeys: `${prefix}api_keys`
})
export type Tables = ReturnType<typeof tables>
