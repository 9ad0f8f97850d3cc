/**
 * Wiring: every service the payment intent flows need, from the host's choices.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as HostedCheckout from "./HostedCheckout.js"
import * as Ids from "./Ids.js"
import * as Merchants from "./Merchants.js"
import type { PaymentProvider } from "./Provider.js"
import { layerRegistry } from "./Provider.js"
import * as Seed from "./Seed.js"
import * as Simulator from "./Simulator.js"
import * as Storage from "./Storage.js"
import type * as Task from "./Task.js"

/** @since 0.1.0 @category models */
export interface TenderOptions {
  readonly seed: Seed.Seed
  readonly hostedCheckout: HostedCheckout.HostedCheckoutOptions
  /** Installed providers. Default: the simulator alone (D9). */
  readonly providers?: ReadonlyArray<PaymentProvider>
}

/**
 * Everything but storage: route health from the seed, providers, ids, hosted checkout.
 *
 * @since 0.1.0 @category layers
 */
export const layerWithoutStorage = (options: TenderOptions) =>
  Layer.mergeAll(
    Seed.layerRouteHealth(options.seed),
    layerRegistry(options.providers ?? [Simulator.make({ baseUrl: `${options.hostedCheckout.baseUrl.replace(/\/$/, "")}/simulator` })]),
    Ids.layer,
    HostedCheckout.layer(options.hostedCheckout)
  )

/**
 * Every service on the given storage, which provides `Storage`, `Tasks` and `Merchants`
 * (`@tender/postgres`'s `PgStorage.layer`, or `layerMemory` here). The seed's merchants
 * and keys are written into it when the layer is built.
 *
 * @since 0.1.0 @category layers
 */
export const layer = <E, R>(options: TenderOptions, storage: Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants, E, R>) =>
  Layer.merge(layerWithoutStorage(options), Seed.layerApply(options.seed).pipe(Layer.provideMerge(storage)))

/** `Storage`, `Tasks` and `Merchants` on the embedded in-memory store. @since 0.1.0 @category layers */
export const layerMemoryStorage: Layer.Layer<Storage.Storage | Task.Tasks | Merchants.Merchants> = Layer.merge(Storage.layerMemory, Merchants.layerMemory())

/** Every service on the embedded in-memory store. @since 0.1.0 @category layers */
export const layerMemory = (options: TenderOptions) => Layer.orDie(layer(options, layerMemoryStorage))
