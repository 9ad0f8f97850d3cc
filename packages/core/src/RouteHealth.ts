/**
 * Route health as a port. The host can mark a route down or up; failures observed from a
 * provider count against the route: after `failureThreshold` consecutive failures it is
 * unhealthy for `cooldownMillis`, then tried again.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"

/** @since 0.1.0 @category tags */
export class RouteHealth extends Context.Tag("@tender/core/RouteHealth")<RouteHealth, {
  readonly isHealthy: (routeId: string) => Effect.Effect<boolean>
  /** The host's word: `false` takes the route out of service until set `true` again. */
  readonly setAvailable: (routeId: string, available: boolean) => Effect.Effect<void>
  readonly recordFailure: (routeId: string) => Effect.Effect<void>
  readonly recordSuccess: (routeId: string) => Effect.Effect<void>
}>() {}

/** @since 0.1.0 @category models */
export interface HealthOptions {
  readonly failureThreshold?: number
  readonly cooldownMillis?: number
  /** Routes the host marked down from the start. */
  readonly down?: ReadonlyArray<string>
}

/** In-process health: host flags plus a consecutive-failure breaker, on the Effect clock. @since 0.1.0 @category layers */
export const layerMemory = (options: HealthOptions = {}): Layer.Layer<RouteHealth> =>
  Layer.sync(RouteHealth, () => {
    const threshold = options.failureThreshold ?? 3
    const cooldown = options.cooldownMillis ?? 30_000
    const down = new Set(options.down ?? [])
    const failures = new Map<string, { count: number; openUntil: number }>()
    const now = Effect.clockWith((c) => c.currentTimeMillis)
    return {
      isHealthy: (routeId) =>
        Effect.map(now, (t) => {
          if (down.has(routeId)) return false
          const f = failures.get(routeId)
          return f === undefined || f.count < threshold || t >= f.openUntil
        }),
      setAvailable: (routeId, available) =>
        Effect.sync(() => {
          if (available) {
            down.delete(routeId)
            failures.delete(routeId)
          } else down.add(routeId)
        }),
      recordFailure: (routeId) =>
        Effect.map(now, (t) => {
          const count = (failures.get(routeId)?.count ?? 0) + 1
          failures.set(routeId, { count, openUntil: count >= threshold ? t + cooldown : 0 })
        }),
      recordSuccess: (routeId) => Effect.sync(() => void failures.delete(routeId))
    }
  })
