/**
 * Wiring: every service the payment intent flows need, from the host's choices.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as HostedCheckout from "./HostedCheckout.js"
import * as Ids from "./Ids.js"
import * as MemoryStorage from "./MemoryStorage.js"
import type { PaymentProvider } from "./Provider.js"
import { layerRegistry } from "./Provider.js"
import * as Seed from "./Seed.js"
import * as Simulator from "./Simulator.js"
import type { Storage } from "./Storage.js"

/** @since 0.1.0 @category models */
export interface TenderOptions {
  readonly seed: Seed.Seed
  readonly hostedCheckout: HostedCheckout.HostedCheckoutOptions
  /** Installed providers. Default: the simulator alone (D9). */
  readonly providers?: ReadonlyArray<PaymentProvider>
}

/**
 * Everything but storage: merchants and route health from the seed, providers, ids,
 * hosted checkout. Provide a `Storage` layer beside it (memory, PostgreSQL, MongoDB).
 *
 * @since 0.1.0 @category layers
 */
export const layerWithoutStorage = (options: TenderOptions) =>
  Layer.mergeAll(
    Seed.layer(options.seed),
    layerRegistry(options.providers ?? [Simulator.make({ baseUrl: `${options.hostedCheckout.baseUrl.replace(/\/$/, "")}/simulator` })]),
    Ids.layer,
    HostedCheckout.layer(options.hostedCheckout)
  )

/** Every service on the given storage. @since 0.1.0 @category layers */
export const layer = <E, R>(options: TenderOptions, storage: Layer.Layer<Storage, E, R>) =>
  Layer.merge(layerWithoutStorage(options), storage)

/** Every service on the embedded in-memory store. @since 0.1.0 @category layers */
export const layerMemory = (options: TenderOptions) => layer(options, MemoryStorage.layerMemory)
