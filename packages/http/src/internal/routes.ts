/**
 * Route facts read from the HttpApi definition at module load, for what the router itself
 * cannot answer: the methods a path has (405 with `Allow`), and which endpoint a request
 * meant when its path holds a bad percent escape (the router finds no route for it).
 */
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { HttpApi, HttpApiMiddleware } from "@effect/platform"
import { TenderApi } from "../Api.js"

/** One endpoint, as the middleware needs it. @since 0.1.0 */
export interface Route {
  readonly method: string
  /** The path as defined, `:name` for a parameter. */
  readonly path: string
  readonly pattern: RegExp
  /** The names of the path parameters, in order. */
  readonly params: ReadonlyArray<string>
  /** Whether a security middleware (authentication) runs before the endpoint. */
  readonly authenticated: boolean
  /** Whether it takes a multipart file upload (its larger body limit). */
  readonly uploads: boolean
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const toRoute = (
  endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps,
  group: HttpApiGroup.HttpApiGroup.AnyWithProps,
  contentTypes: ReadonlySet<string>
): Route => {
  const params: Array<string> = []
  const source = endpoint.path.split("/").map((segment) => {
    if (!segment.startsWith(":")) return escape(segment)
    params.push(segment.slice(1).replace(/\?$/, ""))
    return "([^/]+)"
  }).join("/")
  const middleware = [...group.middlewares, ...endpoint.middlewares]
  return {
    method: endpoint.method,
    path: endpoint.path,
    pattern: new RegExp(`^${source}$`),
    params,
    authenticated: middleware.some(HttpApiMiddleware.isSecurity),
    uploads: contentTypes.has("multipart/form-data")
  }
}

/** Every endpoint of the API. */
const routes: ReadonlyArray<Route> = (() => {
  const all: Array<Route> = []
  HttpApi.reflect(TenderApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, payloads }) =>
      all.push(toRoute(endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps, group, new Set(payloads.keys())))
  })
  return all
})()

/** The methods defined for a path, sorted (405 `Allow`); empty for an unknown path. @since 0.1.0 */
export const methodsOf = (path: string): ReadonlyArray<string> =>
  [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort()

/** The endpoint for a method and path, matching parameters without decoding them. @since 0.1.0 */
export const find = (method: string, path: string): Route | undefined =>
  routes.find((r) => r.method === method && r.pattern.test(path))

/** The first path parameter that is not a valid percent-encoded string, if any. @since 0.1.0 */
export const undecodableParam = (route: Route, path: string): string | undefined => {
  const values = route.pattern.exec(path)?.slice(1) ?? []
  return route.params.find((_, i) => {
    try {
      decodeURIComponent(values[i] ?? "")
      return false
    } catch {
      return true
    }
  })
}
