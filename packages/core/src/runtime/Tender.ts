/**
 * Wiring: every service the payment intent flows need, from the host's choices.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as Ledger from "../balances/Ledger.js"
import * as Merchants from "../merchants/Merchants.js"
import * as Health from "../observability/Health.js"
import * as TelemetryLive from "../observability/TelemetryLive.js"
import * as HostedCheckout from "../paymentIntents/HostedCheckout.js"
import type * as CredentialVault from "../providers/CredentialVault.js"
import type { PaymentProvider } from "../providers/Provider.js"
import { layerRegistry } from "../providers/Provider.js"
import * as Operation from "../requests/Operation.js"
import * as Ids from "../resources/Ids.js"
import type * as RouteHealth from "../routing/RouteHealth.js"
import * as Simulator from "../simulator/Simulator.js"
import * as MemoryStorage from "../storage/MemoryStorage.js"
import * as Storage from "../storage/Storage.js"
import type * as Task from "../storage/Task.js"
import * as Fx from "../topups/Fx.js"
import * as DeliveryClient from "../webhooks/DeliveryClient.js"
import * as WebhookConfig from "../webhooks/WebhookConfig.js"
import * as WebhookDelivery from "../webhooks/WebhookDelivery.js"
import type * as WebhookTransport from "../webhooks/WebhookTransport.js"
import * as Seed from "./Seed.js"

/** @since 0.1.0 @category models */
export interface TenderOptions {
  readonly seed: Seed.Seed
  readonly hostedCheckout: HostedCheckout.HostedCheckoutOptions
  /** Installed providers. Default: the simulator alone (D9). */
  readonly providers?: ReadonlyArray<PaymentProvider>
  /**
   * The keys merchants' provider account credentials are sealed with (D13,
   * docs/provider-accounts.md), newest first: the first seals, every one opens. Without one, a
   * seed or call holding credentials is refused.
   */
  readonly providerAccountKeys?: ReadonlyArray<CredentialVault.AccountKey> | undefined
  /** Webhook settings: secret encryption key, private URLs, timeout and delivery limits. */
  readonly webhooks?: (WebhookConfig.WebhookOptions & WebhookDelivery.SenderOptions) | undefined
  /**
   * How deliveries reach receivers. Default: `DeliveryClient.layer()`, on `node:http(s)`,
   * which connects to live endpoints only at public addresses (SSRF); `@tender/http`'s
   * `WebhookClient.layer` sends through `@effect/platform`'s `HttpClient`.
   */
  readonly webhookTransport?: Layer.Layer<WebhookTransport.WebhookTransport> | undefined
  /** Exchange rates for top-ups (docs/topups.md). Default: `Fx.layerStatic()`, fixed test rates. */
  readonly fxRates?: Layer.Layer<Fx.FxRates> | undefined
  /** Top-up fees (docs/topups.md). Default: `Fx.layerStaticFees()`. */
  readonly topupFees?: Layer.Layer<Fx.TopupFees> | undefined
  /**
   * Sample the gauges that need a store query (task backlog, undelivered webhooks) and the
   * route breakers, every `gaugeIntervalMillis` (docs/observability.md). Default off: spans and
   * counters need no option, only a tracer and a metric reader from the host.
   */
  readonly telemetry?: TelemetryLive.TelemetryOptions | undefined
  /** The route breaker: failures in a row that take a route out of use, and for how long (docs/discovery-and-routing.md, "Route health"). Default 3 and 30 s. */
  readonly routeHealth?: RouteHealth.BreakerOptions | undefined
  /** How a request's claims are given back when the store was down for their release (docs/reliability.md, "Database outage"). Default 100 ms, then at least every 2 s. */
  readonly releaseRetry?: Operation.ReleaseRetry["Type"] | undefined
}

/**
 * Everything but storage: providers, ids, hosted checkout, webhook settings and the webhook
 * sender. (Route health keeps the host's word in the store: `layer` adds it.)
 *
 * @since 0.1.0 @category layers
 */
export const layerWithoutStorage = (options: TenderOptions) =>
  Layer.mergeAll(
    layerRegistry(
      options.providers ?? [Simulator.make({ baseUrl: `${options.hostedCheckout.baseUrl.replace(/\/$/, "")}/simulator` })],
      { accountKeys: options.providerAccountKeys }
    ),
    Ids.layer,
    Health.layerWorkerStatus,
    HostedCheckout.layer(options.hostedCheckout),
    WebhookConfig.layerConfig({ ...options.webhooks, fallbackKey: options.hostedCheckout.secret }),
    WebhookDelivery.layerSender(options.webhooks).pipe(
      Layer.provide(options.webhookTransport ?? DeliveryClient.layer())
    ),
    options.fxRates ?? Fx.layerStatic(),
    options.topupFees ?? Fx.layerStaticFees(),
    options.releaseRetry === undefined ? Layer.empty : Layer.succeed(Operation.ReleaseRetry, options.releaseRetry)
  )

/**
 * Every service on the given storage, which provides `Storage`, `Tasks` and `Merchants`
 * (`@tender/postgres`'s `PgStorage.layer`, or `layerMemory` here). The seed's merchants
 * and keys are written into it when the layer is built; route health keeps the host's word on
 * routes in it (`Seed.layerRouteHealth`).
 *
 * @since 0.1.0 @category layers
 */
export const layer = <E, R>(options: TenderOptions, storage: Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, E, R>) => {
  // One build of the services without storage: the seed's provider accounts are sealed with its registry (D13).
  const base = layerWithoutStorage(options)
  // Payment intents are counted as the commits that create and finish them apply (TelemetryLive);
  // every commit carries the balance transactions of the state changes in it (Ledger, D12).
  const counted = TelemetryLive.layerCountingStorage.pipe(Layer.provideMerge(storage))
  const stored = Layer.merge(Seed.layerRouteHealth(options.seed, options.routeHealth), Seed.layerApply(options.seed)).pipe(
    Layer.provideMerge(Ledger.layerStorage.pipe(Layer.provideMerge(counted))),
    Layer.provide(base)
  )
  const services = Layer.merge(base, stored)
  return options.telemetry === undefined
    ? services
    : Layer.provideMerge(TelemetryLive.layerGauges(options.telemetry), services)
}

/** `Storage`, `Tasks` and `Merchants` on the embedded in-memory store. @since 0.1.0 @category layers */
export const layerMemoryStorage: Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants> = Layer.provideMerge(Merchants.layer, MemoryStorage.layer)

/** Every service on the embedded in-memory store. @since 0.1.0 @category layers */
export const layerMemory = (options: TenderOptions) => Layer.orDie(layer(options, layerMemoryStorage))
