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
import { Merchants } from "../merchants/Merchants.js"
import type { StorageError } from "../storage/StorageError.js"

/** What health is asked about: a configured route, the provider it executes at, and the merchant's account there if it names one (D13). @since 0.1.0 @category models */
export interface RouteRef {
  readonly id: string
  readonly provider: string
  readonly providerAccount?: string | null | undefined
}

/**
 * What the breaker counts failures of: a route on a merchant's own account counts against the
 * account (D13: each account is its own route target, and one merchant's failing account never
 * marks another's down; account ids are unique across merchants), any other route against itself.
 */
const targetOf = (route: RouteRef): string =>
  route.providerAccount === undefined || route.providerAccount === null ? `route:${route.id}` : `account:${route.providerAccount}`

/** @since 0.1.0 @category tags */
export class RouteHealth extends Context.Tag("@tender/core/RouteHealth")<RouteHealth, {
  readonly isHealthy: (route: RouteRef) => Effect.Effect<boolean>
  /** The host's word on a route: `false` takes it out of service until set `true` again. */
  readonly setRouteAvailable: (routeId: string, available: boolean) => Effect.Effect<void, StorageError>
  /** The host's word on a provider: `false` takes every route to it out of service. */
  readonly setProviderAvailable: (providerCode: string, available: boolean) => Effect.Effect<void, StorageError>
  readonly recordFailure: (route: RouteRef) => Effect.Effect<void>
  readonly recordSuccess: (route: RouteRef) => Effect.Effect<void>
  /** Every route it knows (the ones it was told of, and any with an outcome or a flag), and its state now: for gauges. */
  readonly snapshot: Effect.Effect<ReadonlyArray<RouteState>>
}>() {}

/**
 * A route's state: `closed` (in use), `open` (its breaker tripped, until the cool-down ends),
 * `down` (the host took it, or its provider, out of service).
 *
 * @since 0.1.0 @category models
 */
export interface RouteState extends RouteRef {
  readonly state: "closed" | "open" | "down"
}

/**
 * The breaker of each process (docs/discovery-and-routing.md, "Route health"): a route that
 * failed `failureThreshold` times in a row (default 3) is skipped for `cooldownMillis` (default
 * 30 000), then tried again.
 *
 * @since 0.1.0 @category models
 */
export interface BreakerOptions {
  readonly failureThreshold?: number | undefined
  readonly cooldownMillis?: number | undefined
}

/** @since 0.1.0 @category models */
export interface HealthOptions extends BreakerOptions {
  /** Routes the host marked down from the start. */
  readonly routesDown?: ReadonlyArray<string>
  /** Providers the host marked down from the start. */
  readonly providersDown?: ReadonlyArray<string>
  /** The routes to report in `snapshot` before any outcome is recorded (the seed's). */
  readonly routes?: ReadonlyArray<RouteRef>
}

/** The consecutive-failure breaker of one process, on the Effect clock, and the routes it has heard of (for `snapshot`). */
const breaker = (options: HealthOptions) => {
  const threshold = options.failureThreshold ?? 3
  const cooldown = options.cooldownMillis ?? 30_000
  const failures = new Map<string, { count: number; openUntil: number }>()
  const known = new Map<string, RouteRef>((options.routes ?? []).map((r) => [r.id, r]))
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const closedAt = (route: RouteRef, t: number) => {
    const f = failures.get(targetOf(route))
    return f === undefined || f.count < threshold || t >= f.openUntil
  }
  return {
    closed: (route: RouteRef) => Effect.map(now, (t) => closedAt(route, t)),
    reset: (routeId: string) =>
      Effect.sync(() => {
        failures.delete(`route:${routeId}`)
        const route = known.get(routeId)
        if (route !== undefined) failures.delete(targetOf(route))
      }),
    recordFailure: (route: RouteRef) =>
      Effect.map(now, (t) => {
        known.set(route.id, route)
        const target = targetOf(route)
        const count = (failures.get(target)?.count ?? 0) + 1
        failures.set(target, { count, openUntil: count >= threshold ? t + cooldown : 0 })
      }),
    recordSuccess: (route: RouteRef) =>
      Effect.sync(() => {
        known.set(route.id, route)
        failures.delete(targetOf(route))
      }),
    /** Every known route's state, given whether the host's word keeps it up. */
    snapshot: (up: (route: RouteRef) => boolean) =>
      Effect.map(
        now,
        (t): ReadonlyArray<RouteState> =>
          [...known.values()].map((route) => ({ ...route, state: !up(route) ? "down" : closedAt(route, t) ? "closed" : "open" }))
      )
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
      const none: { routes: ReadonlyMap<string, boolean>; providers: ReadonlyMap<string, boolean> } = { routes: new Map(), providers: new Map() }
      const stored = Effect.orElseSucceed(merchants.findAvailability, () => none)
      const upBy = (words: typeof none) => (route: RouteRef) =>
        (words.routes.get(route.id) ?? !routesDown.has(route.id)) && (words.providers.get(route.provider) ?? !providersDown.has(route.provider))
      return RouteHealth.of({
        isHealthy: (route) => Effect.flatMap(stored, (words) => upBy(words)(route) ? b.closed(route) : Effect.succeed(false)),
        setRouteAvailable: (routeId, available) =>
          Effect.zipRight(merchants.setAvailability({ kind: "route", id: routeId }, available), available ? b.reset(routeId) : Effect.void),
        setProviderAvailable: (providerCode, available) => merchants.setAvailability({ kind: "provider", id: providerCode }, available),
        recordFailure: b.recordFailure,
        recordSuccess: b.recordSuccess,
        snapshot: Effect.flatMap(stored, (words) => b.snapshot(upBy(words)))
      })
    })
  )

/** In-process health: host flags plus a consecutive-failure breaker, on the Effect clock. @since 0.1.0 @category layers */
export const layerMemory = (options: HealthOptions = {}): Layer.Layer<RouteHealth> =>
  Layer.sync(RouteHealth, () => {
    const b = breaker(options)
    const routesDown = new Set(options.routesDown ?? [])
    const providersDown = new Set(options.providersDown ?? [])
    const up = (route: RouteRef) => !routesDown.has(route.id) && !providersDown.has(route.provider)
    const flag = (set: Set<string>, key: string, available: boolean) =>
      Effect.sync(() => {
        if (available) set.delete(key)
        else set.add(key)
      })
    return {
      isHealthy: (route) => up(route) ? b.closed(route) : Effect.succeed(false),
      setRouteAvailable: (routeId, available) => Effect.zipRight(flag(routesDown, routeId, available), available ? b.reset(routeId) : Effect.void),
      setProviderAvailable: (providerCode, available) => flag(providersDown, providerCode, available),
      recordFailure: b.recordFailure,
      recordSuccess: b.recordSuccess,
      snapshot: b.snapshot(up)
    }
  })
