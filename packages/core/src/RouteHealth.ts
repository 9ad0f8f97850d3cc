/**
 * Route health as a port. The host can take a route, or a whole provider, out of service
 * and put it back; failures observed from a provider count against the route: after
 * `failureThreshold` consecutive failures it is unhealthy for `cooldownMillis`, then
 * tried again.
 *
 * `layer` keeps the host's word in the `Merchants` store, so every process on one database
 * sees a route taken out of service (docs/performance.md, "Caches across processes");
 * `layerMemory` keeps it in this process only. The breaker is always per process: it counts
 * the failures this process observed.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { Merchants } from "./Merchants.js"
import type { StorageError } from "./StorageError.js"

/** What health is asked about: a configured route and the provider it executes at. @since 0.1.0 @category models */
export interface RouteRef {
  readonly id: string
  readonly provider: string
}

/** @since 0.1.0 @category tags */
export class RouteHealth extends Context.Tag("@tender/core/RouteHealth")<RouteHealth, {
  readonly isHealthy: (route: RouteRef) => Effect.Effect<boolean>
  /** The host's word on a route: `false` takes it out of service until set `true` again. */
  readonly setRouteAvailable: (routeId: string, available: boolean) => Effect.Effect<void, StorageError>
  /** The host's word on a provider: `false` takes every route to it out of service. */
  readonly setProviderAvailable: (providerCode: string, available: boolean) => Effect.Effect<void, StorageError>
  readonly recordFailure: (route: RouteRef) => Effect.Effect<void>
  readonly recordSuccess: (route: RouteRef) => Effect.Effect<void>
}>() {}

/** @since 0.1.0 @category models */
export interface HealthOptions {
  readonly failureThreshold?: number
  readonly cooldownMillis?: number
  /** Routes the host marked down from the start. */
  readonly routesDown?: ReadonlyArray<string>
  /** Providers the host marked down from the start. */
  readonly providersDown?: ReadonlyArray<string>
}

/** The consecutive-failure breaker of one process, on the Effect clock. */
const breaker = (options: HealthOptions) => {
  const threshold = options.failureThreshold ?? 3
  const cooldown = options.cooldownMillis ?? 30_000
  const failures = new Map<string, { count: number; openUntil: number }>()
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  return {
    closed: (route: RouteRef) =>
      Effect.map(now, (t) => {
        const f = failures.get(route.id)
        return f === undefined || f.count < threshold || t >= f.openUntil
      }),
    reset: (routeId: string) => Effect.sync(() => void failures.delete(routeId)),
    recordFailure: (route: RouteRef) =>
      Effect.map(now, (t) => {
        const count = (failures.get(route.id)?.count ?? 0) + 1
        failures.set(route.id, { count, openUntil: count >= threshold ? t + cooldown : 0 })
      })
  }
}

/**
 * Health with the host's word stored through `Merchants` (`setAvailability`), shared by every
 * process on the store: a stored word wins over the start state in `options` (the seed's
 * `healthy: false`), which applies where the host has said nothing. A failed read of the stored
 * words counts as no word (the request then meets the same store failure on its own writes).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: HealthOptions = {}): Layer.Layer<RouteHealth, never, Merchants> =>
  Layer.effect(
    RouteHealth,
    Effect.map(Merchants, (merchants) => {
      const b = breaker(options)
      const routesDown = new Set(options.routesDown ?? [])
      const providersDown = new Set(options.providersDown ?? [])
      const none = { routes: new Map<string, boolean>(), providers: new Map<string, boolean>() }
      return RouteHealth.of({
        isHealthy: (route) =>
          Effect.flatMap(Effect.orElseSucceed(merchants.findAvailability, () => none), (stored) => {
            const routeUp = stored.routes.get(route.id) ?? !routesDown.has(route.id)
            const providerUp = stored.providers.get(route.provider) ?? !providersDown.has(route.provider)
            return routeUp && providerUp ? b.closed(route) : Effect.succeed(false)
          }),
        setRouteAvailable: (routeId, available) =>
          Effect.zipRight(merchants.setAvailability({ kind: "route", id: routeId }, available), available ? b.reset(routeId) : Effect.void),
        setProviderAvailable: (providerCode, available) => merchants.setAvailability({ kind: "provider", id: providerCode }, available),
        recordFailure: b.recordFailure,
        recordSuccess: (route) => b.reset(route.id)
      })
    })
  )

/** In-process health: host flags plus a consecutive-failure breaker, on the Effect clock. @since 0.1.0 @category layers */
export const layerMemory = (options: HealthOptions = {}): Layer.Layer<RouteHealth> =>
  Layer.sync(RouteHealth, () => {
    const b = breaker(options)
    const routesDown = new Set(options.routesDown ?? [])
    const providersDown = new Set(options.providersDown ?? [])
    const flag = (set: Set<string>, key: string, available: boolean) =>
      Effect.sync(() => {
        if (available) set.delete(key)
        else set.add(key)
      })
    return {
      isHealthy: (route) =>
        routesDown.has(route.id) || providersDown.has(route.provider) ? Effect.succeed(false) : b.closed(route),
      setRouteAvailable: (routeId, available) => Effect.zipRight(flag(routesDown, routeId, available), available ? b.reset(routeId) : Effect.void),
      setProviderAvailable: (providerCode, available) => flag(providersDown, providerCode, available),
      recordFailure: b.recordFailure,
      recordSuccess: (route) => b.reset(route.id)
    }
  })
