/**
 * The demo server: @tender/http on the embedded in-memory store, loaded from a seed file.
 *
 *   npm start                      # PORT=3000, TENDER_SEED=examples/server/seed.json
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm start   # on PostgreSQL
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm start      # traces and metrics over OTLP
 *   STRIPE_* / ADYEN_* set: Stripe / Adyen beside the simulator (docs/providers/)
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { adyen } from "@tender/adyen"
import { Maintenance, Simulator, Tender, Workers } from "@tender/core"
import { ClientErrors, Startup, WebhookClient } from "@tender/http"
import { MongoStorage } from "@tender/mongodb"
import { PgDiagnosis, PgStorage } from "@tender/postgres"
import { stripe } from "@tender/stripe"
import { Cause, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { directoryCache, InvalidConfig, loadSeed, options } from "./config.js"

/** Whether the standard variables turn telemetry export on (as `OpenTelemetry.enabledInEnv`, without loading it). */
const otelEnabled = (env: NodeJS.ProcessEnv) => (env["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? "") !== "" && env["OTEL_SDK_DISABLED"] !== "true"

/** Where the data lives, for the banner: never the password. */
const describeStore = (databaseUrl: string | undefined, tablePrefix: string) => {
  if (databaseUrl === undefined) return "in-memory store"
  try {
    const u = new URL(databaseUrl)
    return `PostgreSQL store at ${u.hostname}:${u.port || "5432"}${u.pathname}, table prefix ${tablePrefix}`
  } catch {
    return `PostgreSQL store, table prefix ${tablePrefix}`
  }
}

const main = Effect.gen(function*() {
  const {
    checkoutSecret,
    databaseUrl,
    directoryCacheMaxAgeMillis,
    maxConcurrentUploads,
    maxHeaderBytes,
    preparedStatements,
    mongodbUrl,
    port,
    publicUrl,
    requestTimeoutMillis,
    retention,
    releaseRetry,
    routeHealth,
    seedPath,
    simulatorTimings,
    startupTimeoutMillis,
    statementTimeoutMillis,
    stripe: stripeOptions,
    adyen: adyenOptions,
    tablePrefix,
    taskLeaseMillis
  } = yield* Effect.try({
    try: () => options(),
    catch: (e) => e instanceof InvalidConfig ? e : new InvalidConfig({ message: String(e) })
  })
  const seed = yield* loadSeed(seedPath)
  // Webhooks go out through @effect/platform's HttpClient (on fetch), redirects not followed.
  // Telemetry only when the standard OTEL_* variables ask for it (docs/observability.md): the
  // exporter module is loaded then and only then, so a server without them loads no OpenTelemetry code.
  const telemetry = otelEnabled(process.env)
    ? yield* Effect.promise(() => import("@tender/http/OpenTelemetry")).pipe(Effect.map((m) => m.layerFromEnv()))
    : undefined
  const tender = {
    seed,
    hostedCheckout: { baseUrl: publicUrl, secret: checkoutSecret },
    routeHealth,
    ...(releaseRetry === undefined ? {} : { releaseRetry }),
    webhookTransport: WebhookClient.layerFetch,
    // The simulator, with the timings of TENDER_SIMULATOR_*_MS; with STRIPE_* or ADYEN_* set,
    // Stripe or Adyen beside it (seed routes name them "stripe", "adyen"); their notifications
    // arrive at {publicUrl}/provider_notifications/{code}.
    providers: [
      Simulator.make({ baseUrl: `${publicUrl}/simulator`, timings: simulatorTimings }),
      ...(stripeOptions === undefined ? [] : [stripe({ ...stripeOptions, returnUrl: `${publicUrl}/` })]),
      ...(adyenOptions === undefined ? [] : [adyen({ ...adyenOptions, returnUrl: `${publicUrl}/` })])
    ],
    ...(telemetry === undefined ? {} : { telemetry: { gaugeIntervalMillis: 15_000 } })
  }
  // On PostgreSQL the migrations run at start (a no-op when they already ran) and the seed is upserted.
  const store = databaseUrl !== undefined
    ? Tender.layer(
      tender,
      PgStorage.layerFromUrl({
        url: databaseUrl,
        tablePrefix,
        statementTimeout: statementTimeoutMillis,
        directoryCache: directoryCache(directoryCacheMaxAgeMillis),
        preparedStatements
      })
    )
    : mongodbUrl !== undefined
    ? Tender.layer(
      tender,
      MongoStorage.layerFromUrl({
        url: mongodbUrl,
        collectionPrefix: tablePrefix,
        directoryCache: directoryCache(directoryCacheMaxAgeMillis)
      })
    )
    : Tender.layerMemory(tender)
  // Expired idempotency keys and records past their retention are purged every hour, in batches
  // (docs/retention.md; each process may run it, it is idempotent; TENDER_PURGE=off leaves it to
  // another), and the workers run the durable tasks (confirm, receipts, expiry): any number of
  // processes may share them.
  const purge = retention === undefined ? Layer.empty : Maintenance.layerSchedule(retention)
  const services = Layer.mergeAll(purge, Workers.layer({ leaseMillis: taskLeaseMillis })).pipe(
    Layer.provideMerge(store),
    // Provided first, so the workers' fibers start with the exporting tracer installed.
    Layer.provide(telemetry ?? Layer.empty)
  )
  // Storage first, the port last (Startup.serve): the port opens once storage is connected, migrated
  // and seeded, so no connection is taken that cannot be answered; a store that is not ready within
  // TENDER_STARTUP_TIMEOUT_MS stops the start (docs/reliability.md).
  const server = Startup.serve({
    services,
    server: NodeHttpServer.layer(() => httpServer(requestTimeoutMillis, maxHeaderBytes), { port, host: "127.0.0.1" }),
    timeout: startupTimeoutMillis,
    mount: { maxConcurrentUploads }
  })
  const demo = seed.merchants[0]?.api_keys.find((k) => k.public_key.startsWith("pk_test_"))
  // The banner is built after the server layer, so it prints only once the port is listening.
  yield* Layer.launch(Layer.effectDiscard(Effect.sync(() => banner(publicUrl, where(), seedPath, demo))).pipe(Layer.provide(server)))
})

/**
 * The Node server with the limits a host should set (docs/reliability.md): a whole request within
 * `requestTimeout` (checked every second, so a slow client gets its 408 on time), headers of at
 * most `maxHeaderSize` bytes; the errors Node answers itself come in the D1 shape (ClientErrors).
 */
const httpServer = (requestTimeout: number, maxHeaderSize: number) =>
  ClientErrors.install(createServer({
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 60_000),
    connectionsCheckingInterval: Math.min(requestTimeout, 1_000),
    maxHeaderSize
  }))

/** The store in words, for the banner and the start-up failure line. */
const where = () => {
  const { databaseUrl, mongodbUrl, tablePrefix } = options()
  return mongodbUrl !== undefined && databaseUrl === undefined
    ? `MongoDB store, collection prefix ${tablePrefix}`
    : describeStore(databaseUrl, tablePrefix)
}

/**
 * Why the server could not start, in one line for stderr: an operator reads the cause, not a
 * stack trace. The database's own words follow, never its URL's password.
 */
const startupFailure = (error: { readonly _tag: string; readonly message: string; readonly cause?: unknown }): string => {
  if (error._tag === "InvalidConfig") return error.message
  if (error._tag === "InvalidSeed") return `the seed file does not hold together (InvalidSeed): ${error.message}`
  if (error._tag === "StartupTimeout") {
    return `cannot start on ${where()}: ${error.message} (TENDER_STARTUP_TIMEOUT_MS); giving up`
  }
  // A missing database or role, a refused connection, an unmigrated schema: named with what to do.
  const diagnosed = PgDiagnosis.describe(error)
  if (diagnosed !== undefined) return `cannot start on ${where()}: ${diagnosed}`
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return `cannot start on ${where()}: ${error.message}${cause === undefined || cause === error.message ? "" : ` (${cause})`}`
}

/**
 * The start-up banner. It never prints a secret (stdout ends up in shared
 * logs): the curl hint names the key by its id and reads the secret from the seed file itself.
 */
const banner = (url: string, store: string, seedPath: string, key: { id: string; public_key: string } | undefined) => {
  const lines = [
    `Tender demo server listening on ${url} (${store}, seed ${seedPath})`,
    `OpenAPI document: ${url}/openapi.json`
  ]
  if (key !== undefined) {
    const read = `require(${JSON.stringify(seedPath)}).merchants[0].api_keys.find((k) => k.id === ${JSON.stringify(key.id)}).secret_key`
    lines.push(
      `Create a first payment intent with API key ${key.id} (its secret_key is in ${seedPath}):`,
      `  TENDER_SECRET_KEY=$(node -p '${read.replaceAll("'", "'\\''")}')`,
      `  curl -s -u ${key.public_key}:$TENDER_SECRET_KEY -H 'Content-Type: application/json' \\`,
      `    -H "Idempotency-Key: $(uuidgen 2>/dev/null || date +%s%N)" \\`,
      `    -d '{"amount":"150000","currency":"THB","country":"TH","checkout_mode":"merchant","payment_method":"th_promptpay","customer":{"name":"Somchai Jaidee","email":"somchai@example.com"}}' \\`,
      `    ${url}/payment_intents`
    )
  }
  process.stdout.write(lines.join("\n") + "\n")
}

NodeRuntime.runMain(
  main.pipe(
    Effect.catchAll((e) =>
      Effect.sync(() => {
        process.stderr.write(`tender: ${startupFailure(e).replace(/\s*\n\s*/g, " ")}\n`)
        // The whole cause, for whoever asks for it (TENDER_DEBUG=1): the line above is what an operator acts on.
        if (process.env["TENDER_DEBUG"] === "1") process.stderr.write(`${Cause.pretty(Cause.fail(e), { renderErrorCause: true })}\n`)
        // Exit now: a socket to a database that never answered must not keep the process alive.
        process.exit(1)
      })
    )
  )
)
