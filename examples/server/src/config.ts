/**
 * Configuration of the demo server from the environment, and the seed loader.
 */
import { Seed } from "@tender/core"
import { Data, Effect } from "effect"
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

/** The default seed shipped with the example. */
export const defaultSeedPath = resolve(here, "..", "seed.json")

/** An environment variable the server cannot run with: reported in one line, exit code 1. */
export class InvalidConfig extends Data.TaggedError("InvalidConfig")<{ readonly message: string }> {}

/** The server's settings from `env`; throws `InvalidConfig` naming the first bad variable. */
export const options = (env: NodeJS.ProcessEnv = process.env) => {
  const port = wholeNumber(env, "PORT", 3000, 0, 65535, "a port number from 0 to 65535")
  return {
    port,
    publicUrl: (env["TENDER_PUBLIC_URL"] ?? `http://127.0.0.1:${port}`).replace(/\/$/, ""),
    // A fixed demo secret: hosted URLs stay valid across restarts. Set your own in production.
    checkoutSecret: env["TENDER_CHECKOUT_SECRET"] ?? "demo-checkout-secret-change-me",
    // A relative path is taken from where `npm start` was run (npm's INIT_CWD), not from this workspace.
    seedPath: env["TENDER_SEED"] === undefined ? defaultSeedPath : resolve(env["INIT_CWD"] ?? process.cwd(), env["TENDER_SEED"]),
    // PostgreSQL when DATABASE_URL is set; the embedded in-memory store otherwise.
    databaseUrl: env["DATABASE_URL"] === undefined || env["DATABASE_URL"] === "" ? undefined : env["DATABASE_URL"],
    tablePrefix: env["TENDER_TABLE_PREFIX"] ?? "tender_",
    // MongoDB (a replica set) when MONGODB_URL is set and DATABASE_URL is not.
    mongodbUrl: env["MONGODB_URL"] === undefined || env["MONGODB_URL"] === "" ? undefined : env["MONGODB_URL"],
    // How long a worker's claim on a task holds before another process may take it over.
    taskLeaseMillis: env["TENDER_TASK_LEASE_MS"] === undefined || env["TENDER_TASK_LEASE_MS"] === ""
      ? undefined
      : positiveInt(env, "TENDER_TASK_LEASE_MS", 0),
    // How long start-up (storage connected, migrated, seeded) may take before the server gives up
    // with exit code 1 instead of waiting on a database that does not answer (docs/reliability.md).
    startupTimeoutMillis: positiveInt(env, "TENDER_STARTUP_TIMEOUT_MS", 30_000),
    // The limits on a client (docs/reliability.md): the whole request within this (408 after),
    // the headers within the smaller of it and 60 s, and at most this many bytes of headers (431).
    requestTimeoutMillis: positiveInt(env, "TENDER_REQUEST_TIMEOUT_MS", 30_000),
    // On PostgreSQL, the most one statement may take before the request answers 503 (docs/postgres.md).
    statementTimeoutMillis: positiveInt(env, "TENDER_DB_STATEMENT_TIMEOUT_MS", 10_000),
    // The most a process serves cached credentials and route availability after reading them,
    // should a change notification be lost (docs/performance.md, "Caches across processes"); 0 turns the cache off.
    directoryCacheMaxAgeMillis: wholeNumber(
      env,
      "TENDER_DIRECTORY_CACHE_MAX_AGE_MS",
      5_000,
      0,
      maxMillis,
      `a whole number of milliseconds from 0 (off) to ${maxMillis}, like 5000`
    ),
    maxHeaderBytes: positiveInt(env, "TENDER_MAX_HEADER_BYTES", 16 * 1024),
    // How many multipart uploads are worked on at once; one more is answered 503 with Retry-After
    // (docs/reliability.md, "Uploads").
    maxConcurrentUploads: positiveInt(env, "TENDER_MAX_CONCURRENT_UPLOADS", 4),
    // On PostgreSQL, whether each connection prepares Tender's statements once (docs/postgres.md,
    // "Prepared statements"): off behind a pooler that cannot keep them (PgBouncer before 1.21).
    preparedStatements: onOff(env, "TENDER_PG_PREPARED_STATEMENTS", true),
    retention: retention(env),
    // The route breaker (docs/discovery-and-routing.md, "Route health"): failures in a row that
    // take a route out of use, and for how long before it is tried again.
    routeHealth: {
      failureThreshold: wholeNumber(env, "TENDER_ROUTE_FAILURE_THRESHOLD", 3, 1, 1000, "a whole number of failures from 1 to 1000, like 3"),
      cooldownMillis: positiveInt(env, "TENDER_ROUTE_COOLDOWN_MS", 30_000)
    },
    // How soon a request's claims are given back once the store was down for their release too
    // (docs/reliability.md, "Database outage"): the first retry after this, then at least every 2 s.
    releaseRetry: env["TENDER_RELEASE_RETRY_MS"] === undefined || env["TENDER_RELEASE_RETRY_MS"] === ""
      ? undefined
      : releaseRetry(positiveInt(env, "TENDER_RELEASE_RETRY_MS", 100)),
    // The simulator's slow magic amounts (docs/test-environment.md, "Magic amounts"): how long a
    // slow confirmation or refund stays pending, and how soon an expiring payer action ends.
    simulatorTimings: simulatorTimings(env),
    stripe: stripe(env),
    adyen: adyen(env)
  }
}

/** The release back-off from its first delay: doubling from it, at least every 2 s (or every first delay, when longer). */
const releaseRetry = (firstDelayMillis: number) => ({ firstDelayMillis, spacingMillis: Math.max(firstDelayMillis, 2_000) })

/** `Simulator.make`'s timings from TENDER_SIMULATOR_SLOW_MS and TENDER_SIMULATOR_EXPIRY_MS; each unset keeps its default. */
const simulatorTimings = (env: NodeJS.ProcessEnv) => {
  const set = (name: string) => env[name] !== undefined && env[name] !== ""
  const slow = set("TENDER_SIMULATOR_SLOW_MS") ? positiveInt(env, "TENDER_SIMULATOR_SLOW_MS", 5_000) : undefined
  return {
    ...(slow === undefined ? {} : { slowConfirmationMillis: slow, slowRefundMillis: slow }),
    ...(set("TENDER_SIMULATOR_EXPIRY_MS") ? { shortExpiryMillis: positiveInt(env, "TENDER_SIMULATOR_EXPIRY_MS", 10_000) } : {})
  }
}

/**
 * The Adyen adapter's settings (docs/providers/adyen.md): `ADYEN_API_KEY`,
 * `ADYEN_MERCHANT_ACCOUNT` and `ADYEN_HMAC_KEY` together (the HMAC key may list several,
 * comma-separated, during a rotation); optional `ADYEN_API_BASE` (the Checkout API's address with
 * its version path; tests point it at the stand-in), `ADYEN_ENVIRONMENT` (`test`, the default, or
 * `live`) and `ADYEN_LIVE_URL_PREFIX` (a live account's). Unset: no Adyen.
 */
const adyen = (env: NodeJS.ProcessEnv) => {
  const value = (name: string) => (env[name] ?? "").trim()
  const required = ["ADYEN_API_KEY", "ADYEN_MERCHANT_ACCOUNT", "ADYEN_HMAC_KEY"] as const
  const missing = required.filter((name) => value(name) === "")
  if (missing.length === required.length) return undefined
  if (missing.length > 0) {
    throw new InvalidConfig({ message: `ADYEN_API_KEY, ADYEN_MERCHANT_ACCOUNT and ADYEN_HMAC_KEY go together: ${missing.join(" and ")} missing` })
  }
  const hmacKey = value("ADYEN_HMAC_KEY").split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (hmacKey.some((k) => !/^[0-9a-fA-F]+$/.test(k))) throw new InvalidConfig({ message: "ADYEN_HMAC_KEY must be Adyen HMAC keys (hex)" })
  const apiBase = value("ADYEN_API_BASE") === "" ? undefined : value("ADYEN_API_BASE")
  if (apiBase !== undefined && !/^https:\/\/[^/]+\/.*v\d+\/?$/.test(apiBase)) {
    throw new InvalidConfig({
      message: `ADYEN_API_BASE must be an https address with its version path, like https://checkout-test.adyen.com/v72; got ${JSON.stringify(apiBase)}`
    })
  }
  const environment = value("ADYEN_ENVIRONMENT") === "" ? "test" : value("ADYEN_ENVIRONMENT")
  if (environment !== "test" && environment !== "live") {
    throw new InvalidConfig({ message: `ADYEN_ENVIRONMENT must be test or live; got ${JSON.stringify(environment)}` })
  }
  const liveEndpointUrlPrefix = value("ADYEN_LIVE_URL_PREFIX") === "" ? undefined : value("ADYEN_LIVE_URL_PREFIX")
  if (environment === "live" && apiBase === undefined && liveEndpointUrlPrefix === undefined) {
    throw new InvalidConfig({ message: "ADYEN_ENVIRONMENT=live needs ADYEN_LIVE_URL_PREFIX (the live account's URL prefix) or ADYEN_API_BASE" })
  }
  return { apiKey: value("ADYEN_API_KEY"), merchantAccount: value("ADYEN_MERCHANT_ACCOUNT"), hmacKey, apiBase, environment, liveEndpointUrlPrefix } as const
}

/**
 * The Stripe adapter's settings (docs/providers/stripe.md): `STRIPE_SECRET_KEY` and
 * `STRIPE_WEBHOOK_SECRET` together (each may list a test and a live one, comma-separated),
 * `STRIPE_API_BASE` optional (tests point it at the stand-in), `STRIPE_TIMEOUT_MS` optional (per
 * call, default 15 000). Unset: no Stripe.
 */
const stripe = (env: NodeJS.ProcessEnv) => {
  const list = (name: string) => (env[name] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const secretKey = list("STRIPE_SECRET_KEY")
  const webhookSecret = list("STRIPE_WEBHOOK_SECRET")
  if (secretKey.length === 0 && webhookSecret.length === 0) return undefined
  if (secretKey.length === 0 || webhookSecret.length === 0) {
    throw new InvalidConfig({ message: "STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET go together: set both, or neither" })
  }
  const bad = secretKey.find((k) => !/^(sk|rk)_(test|live)_/.test(k))
  if (bad !== undefined) throw new InvalidConfig({ message: "STRIPE_SECRET_KEY must be Stripe secret keys (sk_test_… or sk_live_…)" })
  const apiBase = env["STRIPE_API_BASE"] === undefined || env["STRIPE_API_BASE"] === "" ? undefined : env["STRIPE_API_BASE"]
  if (apiBase !== undefined && !/^https?:\/\/[^/]+\/?$/.test(apiBase)) {
    throw new InvalidConfig({ message: `STRIPE_API_BASE must be an http(s) origin like https://api.stripe.com; got ${JSON.stringify(apiBase)}` })
  }
  // How long one call to Stripe may take before it counts as Stripe unavailable (the route's failure).
  const timeoutMillis = env["STRIPE_TIMEOUT_MS"] === undefined || env["STRIPE_TIMEOUT_MS"] === "" ? undefined : positiveInt(env, "STRIPE_TIMEOUT_MS", 15_000)
  return { secretKey, webhookSecret, apiBase, ...(timeoutMillis === undefined ? {} : { timeoutMillis }) }
}

/** `on` or `off` from the environment, or `fallback` when unset. */
const onOff = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const value = env[name]
  if (value === undefined || value === "") return fallback
  if (value !== "on" && value !== "off") throw new InvalidConfig({ message: `${name} must be on or off; got ${JSON.stringify(value)}` })
  return value === "on"
}

/** The storage option of `TENDER_DIRECTORY_CACHE_MAX_AGE_MS`: 0 is off. */
export const directoryCache = (maxAgeMillis: number) => (maxAgeMillis === 0 ? false as const : { maxAgeMillis })

/**
 * The scheduled purge (docs/retention.md): `undefined` when TENDER_PURGE is `off` (another process
 * or a cron job purges), else `Maintenance.layerSchedule`'s options.
 */
const retention = (env: NodeJS.ProcessEnv) => {
  const purge = env["TENDER_PURGE"] ?? "on"
  if (purge !== "on" && purge !== "off") throw new InvalidConfig({ message: `TENDER_PURGE must be on or off; got ${JSON.stringify(purge)}` })
  if (purge === "off") return undefined
  const days = (name: string, fallback: number) => wholeNumber(env, name, fallback, 1, 36_500, `a whole number of days from 1 to 36500, like ${fallback}`)
  return {
    every: positiveInt(env, "TENDER_PURGE_EVERY_MS", 3_600_000),
    events: `${days("TENDER_EVENTS_RETENTION_DAYS", 30)} days`,
    finishedTasks: `${days("TENDER_TASKS_RETENTION_DAYS", 7)} days`,
    webhookAttempts: `${days("TENDER_WEBHOOK_ATTEMPTS_RETENTION_DAYS", 30)} days`,
    batchSize: wholeNumber(env, "TENDER_PURGE_BATCH_SIZE", 1000, 1, 100_000, "a whole number of rows from 1 to 100000, like 1000")
  } as const
}

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one would fire at once. */
const maxMillis = 2 ** 31 - 1

/** A whole number of milliseconds from 1 to `maxMillis` from the environment, or `fallback` when unset. */
const positiveInt = (env: NodeJS.ProcessEnv, name: string, fallback: number): number =>
  wholeNumber(env, name, fallback, 1, maxMillis, `a whole number of milliseconds from 1 to ${maxMillis}, like ${fallback || 30000}`)

/** A whole number written in decimal digits, within bounds, or `fallback` when unset or empty. */
const wholeNumber = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, expected: string): number => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  const value = /^\s*[0-9]+\s*$/.test(raw) ? Number(raw) : Number.NaN
  if (!(value >= min && value <= max)) throw new InvalidConfig({ message: `${name} must be ${expected}; got ${JSON.stringify(raw)}` })
  return value
}

/** Read and check a seed file; a bad file stops the server with a clear message. */
export const loadSeed = (path: string) =>
  Effect.suspend(() => {
    let text: string | undefined
    return Effect.try({
      try: () => JSON.parse(text = readFileSync(path, "utf8")) as unknown,
      // A file that cannot be read or parsed is a setting to fix (TENDER_SEED), said in one line.
      catch: (e) => new InvalidConfig({ message: `${Seed.fileProblem(path, e, text)} (TENDER_SEED)` })
    })
  }).pipe(Effect.flatMap(Seed.decode))
