/**
 * Route health as a port. The host can take a route, or a whole provider, out of service
 * and put it back; failures observed from a provider count against the route: after
 * `failureThreshold` consecutive failures it is unhealthy for `cooldownMillis`, then
 * tried again.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"

/** What health is asked about: a configured route and the provider it executes at. @since 0.1.0 @category models */
export interface RouteRef {
  readonly id: string
  readonly provider: string
}

/** @since 0.1.0 @category tags */
export class RouteHealth extends Context.Tag("@tender/core/RouteHealth")<RouteHealth, {
  readonly isHealthy: (route: RouteRef) => Effect.Effect<boolean>
  /** The host's word on a route: `false` takes it out of service until set `true` again. */
  readonly setRouteAvailable: (routeId: string, available: boolean) => Effect.Effect<void>
  /** The host's word on a provider: `false` takes every route to it out of service. */
  readonly setProviderAvailable: (providerCode: string, available: boolean) => Effect.Effect<void>
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

/** @since 0.1.0 @category models */
export interface HealthOptions {
  readonly failureThreshold?: number
  readonly cooldownMillis?: number
  /** Routes the host marked down from the start. */
  readonly routesDown?: ReadonlyArray<string>
  /** Providers the host marked down from the start. */
  readonly providersDown?: ReadonlyArray<string>
  /** The routes to report in `snapshot` before any outcome is recorded (the seed's). */
  readonly routes?: ReadonlyArray<RouteRef>
}

/** In-process health: host flags plus a consecutive-failure breaker, on the Effect clock. @since 0.1.0 @category layers */
export const layerMemory = (options: HealthOptions = {}): Layer.Layer<RouteHealth> =>
  Layer.sync(RouteHealth, () => {
    const threshold = options.failureThreshold ?? 3
    const cooldown = options.cooldownMillis ?? 30_000
    const routesDown = new Set(options.routesDown ?? [])
    const providersDown = new Set(options.providersDown ?? [])
    const failures = new Map<string, { count: number; openUntil: number }>()
    const known = new Map<string, RouteRef>((options.routes ?? []).map((r) => [r.id, r]))
    const stateOf = (route: RouteRef, t: number): RouteState["state"] => {
      if (routesDown.has(route.id) || providersDown.has(route.provider)) return "down"
      const f = failures.get(route.id)
      return f === undefined || f.count < threshold || t >= f.openUntil ? "closed" : "open"
    }
    const now = Effect.clockWith((c) => c.currentTimeMillis)
    const flag = (set: Set<string>, key: string, available: boolean) =>
      Effect.sync(() => {
        if (available) set.delete(key)
        else set.add(key)
      })
    return {
      isHealthy: (route) => Effect.map(now, (t) => stateOf(route, t) === "closed"),
      setRouteAvailable: (routeId, available) =>
        Effect.zipRight(flag(routesDown, routeId, available), available ? Effect.sync(() => failures.delete(routeId)) : Effect.void),
      setProviderAvailable: (providerCode, available) => flag(providersDown, providerCode, available),
      recordFailure: (route) =>
        Effect.map(now, (t) => {
          known.set(route.id, route)
          const count = (failures.get(route.id)?.count ?? 0) + 1
          failures.set(route.id, { count, openUntil: count >= threshold ? t + cooldown : 0 })
        }),
      recordSuccess: (route) =>
        Effect.sync(() => {
          known.set(route.id, route)
          failures.delete(route.id)
        }),
      snapshot: Effect.map(now, (t) => [...known.values()].map((route) => ({ ...route, state: stateOf(route, t) })))
    }
  })
