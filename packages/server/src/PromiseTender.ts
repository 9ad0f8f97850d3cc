/**
 * `createTender(options)`: Tender started in one call, for hosts that do not use Effect
 * (docs/embedding.md). It builds what an Effect host wires by hand (docs/embedding.md, "The
 * Effect way"): core's services on the chosen storage, migrated and seeded, the workers and
 * the hourly maintenance, the host's logger; then mounts `@tender/http` on the same services
 * and offers the Promise API on them. One set of services answers both the HTTP routes and
 * `tender.paymentIntents.create(…)`.
 *
 * @since 0.1.0
 */
import type { CredentialVault, Provider } from "@tender/core"
import { Maintenance, ProviderAccounts, Seed, Simulator, Tender as CoreTender, Workers } from "@tender/core"
import * as TenderExpress from "@tender/http/Express"
import * as TenderFastify from "@tender/http/Fastify"
import * as Mount from "@tender/http/Mount"
import * as NodeHttp from "@tender/http/NodeHttp"
import * as TenderHttp from "@tender/http/TenderHttp"
import type { Layer as L } from "effect"
import { Cause, Effect, Layer, ManagedRuntime, Runtime } from "effect"
import { readFile } from "node:fs/promises"
import type { IncomingMessage, ServerResponse } from "node:http"
import { resolve } from "node:path"
import * as Logger from "./internal/logger.js"
import * as Operations from "./internal/operations.js"
import * as Options from "./internal/options.js"
import * as Storage from "./internal/storage.js"
import type * as Api from "./PromiseTypes.js"
import { TenderError } from "./TenderError.js"

/** @since 0.1.0 @category models */
export type HostLogger = Logger.HostLogger
/** @since 0.1.0 @category models */
export type StorageOptions = Storage.StorageOptions
/** A seed (docs/seed-format.md): merchants, their key pairs and routes. @since 0.1.0 @category models */
export type SeedInput = typeof Seed.Seed.Encoded

/** @since 0.1.0 @category options */
export interface TenderOptions {
  /**
   * Where clients reach Tender, e.g. `https://shop.example.com/payments`: its path is the mount
   * prefix, and hosted-checkout links start with it.
   */
  readonly publicUrl: string
  /** Signs hosted-checkout links, and encrypts webhook secrets unless `webhooks.encryptionKey` is set. Keep it secret and stable. */
  readonly checkoutSecret: string
  /** `{ postgres: pool }` (the host's `pg.Pool`), `{ mongodb: client }`, or `{ memory: true }` (the default). */
  readonly storage?: StorageOptions | undefined
  /** A seed object or the path of a seed JSON file (docs/seed-format.md), applied at every start. Default: no merchants. */
  readonly merchants?: SeedInput | string | undefined
  /**
   * Provider adapters: Effect adapters (`PaymentProvider`) or plain-JS ones wrapped by
   * `defineProvider`. The simulator (test environment only, D9) is installed beside them unless
   * `simulator: false`.
   */
  readonly providers?: ReadonlyArray<Provider.PaymentProvider> | undefined
  /**
   * Install the built-in simulator. Default true. `{ notificationSecret }` installs it with the
   * secret its notifications are verified with (D11, docs/test-environment.md); `{ timings }`
   * with other delays for its slow magic amounts (`Simulator.make`'s, docs/test-environment.md).
   */
  readonly simulator?: boolean | {
    readonly notificationSecret?: string | undefined
    readonly timings?: Partial<Simulator.Timings> | undefined
  } | undefined
  /** Where Tender's log lines go: pino, console, or any `{ info, warn, error }`. Default: Effect's logger on stdout. */
  readonly logger?: HostLogger | undefined
  /** Run pending PostgreSQL migrations at start. Default true; false when a deploy step runs `tender migrate`. */
  readonly migrate?: boolean | undefined
  /** Webhook settings (docs/webhooks.md). */
  readonly webhooks?: CoreTender.TenderOptions["webhooks"]
  /** The durable-task workers of this process (docs/reliability.md). `false`: this process runs none. */
  readonly workers?: Workers.WorkerOptions | false | undefined
  /**
   * The keys merchants' provider account credentials are sealed with at rest (D13,
   * docs/provider-accounts.md): `{ id, key }` with `key` 32 random bytes in base64, newest
   * first. The first seals; every one opens, so a rotation puts a new key first and keeps the
   * old ones until `tender accounts reseal` has moved every ciphertext forward. Without a key, a
   * seed or `merchants.create`/`update` holding credentials is refused.
   */
  readonly providerAccountKeys?: ReadonlyArray<CredentialVault.AccountKey> | undefined
  /** The route breaker (docs/discovery-and-routing.md, "Route health"): `failureThreshold` failures in a row (default 3) take a route out of use for `cooldownMillis` (default 30 000). */
  readonly routeHealth?: CoreTender.TenderOptions["routeHealth"]
  /** How many multipart uploads are worked on at once; one more is answered 503 with Retry-After (docs/reliability.md, "Uploads"). Default 4. */
  readonly maxConcurrentUploads?: number | undefined
}

/** A started Tender. @since 0.1.0 @category models */
export interface TenderInstance {
  /** The mount prefix (`/payments`), from `publicUrl`. */
  readonly prefix: string
  readonly publicUrl: string
  /** A `node:http` request listener: Tender's paths; any other path gets Tender's D1 404. `http.createServer(tender.handler)`. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void
  /** Express (or Connect) middleware, before any body parser: `app.use(tender.express())`; other paths go to `next()`. */
  readonly express: () => (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void
  /** A Fastify plugin: `await app.register(tender.fastify())`; other paths go on to the app's routes. */
  readonly fastify: () => ReturnType<typeof TenderFastify.plugin>
  /** Fetch-style hosts (Hono, Bun, Deno, workers): any request; an unknown path gets the D1 404 (check `owns` first to fall through). */
  readonly fetch: (request: Request) => Promise<Response>
  /** Whether a URL or path is one of Tender's routes. */
  readonly owns: (url: string) => boolean
  /** The merchant API's endpoints, by their HttpApi group and endpoint names (docs/server.md). */
  readonly paymentIntents: Api.PaymentIntentsApi
  readonly assets: Api.AssetsApi
  readonly refunds: Api.RefundsApi
  readonly payoutIntents: Api.PayoutIntentsApi
  readonly topupIntents: Api.TopupIntentsApi
  readonly webhookEndpoints: Api.WebhookEndpointsApi
  readonly events: Api.EventsApi
  readonly balance: Api.BalanceApi
  readonly balanceTransactions: Api.BalanceTransactionsApi
  readonly paymentMethods: Api.PaymentMethodsApi
  readonly webhookEventTypes: Api.WebhookEventTypesApi
  /** Host-only: onboarding, key pairs and route health have no HTTP endpoint. */
  readonly merchants: Api.MerchantsApi
  readonly keys: Api.KeysApi
  readonly routes: Api.RoutesApi
  /** Balances, the host's side (D12): adjustments and the platform's fee revenue. */
  readonly balances: Api.BalancesApi
  /**
   * Stop: no new requests or tasks, the tasks in hand finish, every resource Tender opened is
   * released. A pool or client the host gave stays open: end it after this resolves.
   */
  readonly close: () => Promise<void>
}

/** A seed `createTender` cannot use, in the words every bad option uses (the option, then the seed's own problem). */
const seedError = (message: string, cause?: unknown) =>
  new TenderError({ code: "validation_failed", status: 400, param: "merchants", message: `createTender: option "merchants"${message}`, cause })

/** The JSON of the seed file at `path` (resolved): a missing or malformed file is named as the seed, with its path. */
const readSeedFile = async (path: string): Promise<unknown> => {
  let text: string | undefined
  try {
    text = await readFile(path, "utf8")
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw seedError(`: ${Seed.fileProblem(path, cause, text)}`, cause)
  }
}

/** The seed, read from a file when given as a path, checked as at every start. */
const loadSeed = async (merchants: SeedInput | string | undefined): Promise<Seed.Seed> => {
  const path = typeof merchants === "string" ? resolve(merchants) : undefined
  const input = path !== undefined ? await readSeedFile(path) : merchants ?? { merchants: [] }
  const decoded = await Effect.runPromise(Effect.either(Seed.decode(input)))
  if (decoded._tag === "Right") return decoded.right
  throw seedError(`${path === undefined ? " holds a seed that" : `: seed file ${path}`} is invalid: ${decoded.left.message}`)
}

/**
 * The seed's provider accounts (D13) checked before anything starts: credentials with no key to
 * seal them, or that their provider's schema refuses, reject naming the field (never its value).
 */
const checkSeedAccounts = (
  seed: Seed.Seed,
  providers: ReadonlyArray<Provider.PaymentProvider>,
  keys: ReadonlyArray<CredentialVault.AccountKey> | undefined
) => {
  for (const m of seed.merchants) {
    for (const [i, account] of (m.provider_accounts ?? []).entries()) {
      const path = `merchants.${m.id}.provider_accounts.${i}`
      if (keys === undefined || keys.length === 0) {
        throw seedError(`: ${path} holds credentials, and no providerAccountKeys are given to seal them (docs/provider-accounts.md)`)
      }
      const checked = ProviderAccounts.checkCredentials(providers.find((p) => p.code === account.provider), account, path)
      if (checked._tag === "Left") {
        throw new TenderError({
          code: "validation_failed",
          status: 400,
          param: checked.left.param ?? path,
          message: `createTender: option "merchants": ${checked.left.details?.map((d) => d.message).join("; ") ?? checked.left.message}`
        })
      }
    }
  }
}

/** A seed the store refuses at start (D13: an account id another merchant holds): a bad option, not an outage. */
const seedRefusal = (cause: unknown): Seed.ProviderAccountHeld | undefined => {
  if (!Runtime.isFiberFailure(cause)) return undefined
  const failed = cause[Runtime.FiberFailureCauseId]
  return [...Cause.failures(failed), ...Cause.defects(failed)].find((e): e is Seed.ProviderAccountHeld => e instanceof Seed.ProviderAccountHeld)
}

/**
 * Why the services did not start, as one line naming the cause and what to do (a missing
 * database or role, a refused connection, an unmigrated schema: docs/postgres.md); the whole
 * cause stays on the error and goes to the host logger's `debug`.
 */
const startError = async (cause: unknown, options: TenderOptions): Promise<TenderError> => {
  const reason = options.storage !== undefined && "postgres" in options.storage
    ? (await import("@tender/postgres")).PgDiagnosis.describe(cause)
    : undefined
  const message = `tender: could not start: ${reason ?? (cause instanceof Error ? cause.message : String(cause))}`
  // The fiber dump, with every error's own cause rendered: the driver's words, its SQLSTATE.
  const detail = Runtime.isFiberFailure(cause) ? Cause.pretty(cause[Runtime.FiberFailureCauseId], { renderErrorCause: true }) : String(cause)
  options.logger?.debug?.({ err: cause, cause: detail }, message)
  return new TenderError({ code: "service_unavailable", status: 503, message, cause })
}

/**
 * Start Tender: storage connected and migrated, the seed applied, workers running. Resolves
 * once it can answer requests; mount it then, before the host's server listens. A bad option
 * rejects with a `TenderError` (`validation_failed`) naming it: `createTender: option
 * "workers.concurrency" must be a positive integer, got -1`.
 *
 * @since 0.1.0 @category constructors
 */
export const createTender = async (options: TenderOptions): Promise<TenderInstance> => {
  // Every option decoded first: a bad one rejects naming it, before anything is opened.
  const problem = Options.problemOf(options)
  if (problem !== undefined) throw problem
  const mount = Mount.fromPublicUrl(options.publicUrl)
  const seed = await loadSeed(options.merchants)
  const simulator = options.simulator === false ? [] : [Simulator.make({
    baseUrl: `${mount.publicUrl}/simulator`,
    notificationSecret: typeof options.simulator === "object" ? options.simulator.notificationSecret : undefined,
    timings: typeof options.simulator === "object" ? options.simulator.timings : undefined
  })]
  checkSeedAccounts(seed, [...simulator, ...(options.providers ?? [])], options.providerAccountKeys)
  const storage = await Storage.layerOf(options.storage, options.migrate ?? true)
  const core = CoreTender.layer(
    {
      seed,
      hostedCheckout: { baseUrl: mount.publicUrl, secret: options.checkoutSecret },
      providers: [...simulator, ...(options.providers ?? [])],
      providerAccountKeys: options.providerAccountKeys,
      webhooks: options.webhooks,
      routeHealth: options.routeHealth
    },
    storage
  )
  const logger: L.Layer<never> = options.logger === undefined ? Layer.empty : Logger.layer(options.logger)
  const background = options.workers === false
    ? Maintenance.layerSchedule("1 hour")
    : Layer.merge(Workers.layer(options.workers ?? {}), Maintenance.layerSchedule("1 hour"))
  // The logger is provided around the build and merged in: workers and operations log through it.
  const services = background.pipe(Layer.provideMerge(core), Layer.provideMerge(logger))
  const runtime = ManagedRuntime.make(services)
  let web: TenderHttp.WebHandler
  try {
    const built = await runtime.runtime()
    // The HTTP routes on the very services the Promise API uses (not a second copy of them).
    web = TenderHttp.toWebHandler(Layer.merge(Layer.succeedContext(built.context), logger), {
      prefix: mount.prefix,
      maxConcurrentUploads: options.maxConcurrentUploads
    })
    await web.ready()
    await runtime.runPromise(Effect.logInfo(Storage.describe(options.storage)))
  } catch (cause) {
    await runtime.dispose()
    const held = seedRefusal(cause)
    throw held === undefined ? await startError(cause, options) : seedError(`: ${held.message}`, cause)
  }
  let closing: Promise<void> | undefined
  const api = Operations.make(runtime)
  return {
    prefix: mount.prefix,
    publicUrl: mount.publicUrl,
    handler: NodeHttp.listener(web),
    express: () => TenderExpress.middleware(web),
    fastify: () => TenderFastify.plugin(web),
    fetch: (request) => web.handler(request),
    owns: web.owns,
    ...api,
    close: () => closing ??= web.dispose().then(() => runtime.dispose())
  }
}
