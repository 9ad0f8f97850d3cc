/**
 * Tender for this app: on the app's own `pg.Pool`, under the prefix of its public URL, its
 * log lines going to the app's logger. Nothing here is Express-specific.
 */
import { Maintenance, Seed, Tender, Workers } from "@tender/core"
import { Mount, TenderHttp } from "@tender/http"
import { PgStorage } from "@tender/postgres"
import { Effect, HashMap, Layer, Logger } from "effect"
import { readFileSync } from "node:fs"
import type pg from "pg"

/** The app's logger: one JSON object a line, as pino writes them. */
export type Log = (line: { level: string; msg: string; [key: string]: unknown }) => void

export interface TenderOptions {
  readonly pool: pg.Pool
  /** Where clients reach Tender, e.g. `https://shop.example.com/payments`: the prefix is its path. */
  readonly publicUrl: string
  readonly checkoutSecret: string
  readonly seedPath: string
  readonly tablePrefix?: string | undefined
  readonly log: Log
}

/** Effect's log lines (Tender's warnings, 5xx causes) as the app's JSON lines. */
const hostLogger = (log: Log) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) =>
      log({
        level: logLevel.label.toLowerCase(),
        msg: (Array.isArray(message) ? message : [message]).map(String).join(" "),
        ...Object.fromEntries(HashMap.toEntries(annotations))
      }))
  )

export const makeTender = (options: TenderOptions) => {
  const mount = Mount.fromPublicUrl(options.publicUrl)
  const seed = Effect.runSync(Seed.decode(JSON.parse(readFileSync(options.seedPath, "utf8"))))
  const core = Tender.layer(
    { seed, hostedCheckout: { baseUrl: mount.publicUrl, secret: options.checkoutSecret } },
    PgStorage.layerFromPool(options.pool, { tablePrefix: options.tablePrefix })
  )
  // Workers run the durable tasks (confirm, receipts, expiry); expired idempotency keys are purged hourly.
  const services = Layer.mergeAll(Workers.layer(), Maintenance.layerSchedule("1 hour")).pipe(
    Layer.provideMerge(core),
    // Provided around the build and merged into the runtime: workers and requests both log through it.
    Layer.provideMerge(hostLogger(options.log))
  )
  return TenderHttp.toWebHandler(services, mount)
}
