/**
 * Route facts read from the HttpApi definition at module load, for what the router itself
 * cannot answer: whether a path is Tender's at all (a mounted Tender lets every other path
 * fall through to the host, docs/embedding.md), the methods a path has (405 with `Allow`),
 * and which endpoint a request meant when its path holds a bad percent escape (the router
 * finds no route for it). Every group of `TenderApi` joins the table by being in the API.
 */
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { HttpApi, HttpApiMiddleware } from "@effect/platform"
import { Option } from "effect"
import type { SchemaAST } from "effect"
import { TenderApi } from "../Api.js"

/** One endpoint, as the middleware needs it. @since 0.1.0 */
export interface Route {
  readonly method: string
  /** The path as defined, `:name` for a parameter. */
  readonly path: string
  /** The path as a route template, `{name}` for a parameter (metric tags and span names, docs/observability.md). */
  readonly template: string
  readonly pattern: RegExp
  /** The names of the path parameters, in order. */
  readonly params: ReadonlyArray<string>
  /** Whether a security middleware (authentication) runs before the endpoint. */
  readonly authenticated: boolean
  /** Whether it takes a multipart file upload (its larger body limit). */
  readonly uploads: boolean
  /** Whether it declares query parameters (a list's filters); an authenticated route that declares none refuses any (D1). */
  readonly query: boolean
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const toRoute = (
  prefix: string,
  endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps,
  group: HttpApiGroup.HttpApiGroup.AnyWithProps,
  contentTypes: ReadonlySet<string>
): Route => {
  const params: Array<string> = []
  const source = (prefix + endpoint.path).split("/").map((segment) => {
    if (!segment.startsWith(":")) return escape(segment)
    params.push(segment.slice(1).replace(/\?$/, ""))
    return "([^/]+)"
  }).join("/")
  const middleware = [...group.middlewares, ...endpoint.middlewares]
  return {
    method: endpoint.method,
    path: prefix + endpoint.path,
    template: (prefix + endpoint.path).replace(/:([A-Za-z0-9_]+)\??/g, "{$1}"),
    pattern: new RegExp(`^${source}$`),
    params,
    authenticated: middleware.some(HttpApiMiddleware.isSecurity),
    uploads: contentTypes.has("multipart/form-data"),
    query: Option.isSome(endpoint.urlParamsSchema)
  }
}

/** An endpoint of the API as defined (no prefix), with its payload schemas by content type. */
export interface Defined {
  readonly endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  readonly group: HttpApiGroup.HttpApiGroup.AnyWithProps
  readonly payloads: ReadonlyMap<string, { readonly ast: SchemaAST.AST }>
}

/** Every endpoint of the API: the one walk of `TenderApi` that the route table and the decode messages (issueText.ts) share. */
export const defined: ReadonlyArray<Defined> = (() => {
  const all: Array<Defined> = []
  HttpApi.reflect(TenderApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, payloads }) => all.push({ endpoint: endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps, group, payloads })
  })
  return all
})()

/** The routes of the API mounted under one prefix. @since 0.1.0 */
export interface Table {
  /** Where the API is mounted: `""` at the root, else `/segment…` without a trailing slash. */
  readonly prefix: string
  readonly routes: ReadonlyArray<Route>
  /**
   * The routes that could match a path, by `candidateKey`: its number of segments and its first
   * segment after the prefix. A parameter matches exactly one non-empty segment and a literal
   * only itself, so no other route can match; the pattern still decides among the candidates.
   * A Map: the key holds request text (`__proto__` must find nothing).
   */
  readonly candidates: ReadonlyMap<string, ReadonlyArray<Route>>
  /** The number of segments of the prefix. */
  readonly depth: number
}

/** How many `/` a path has. */
const slashes = (path: string) => {
  let n = 0
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++
  return n
}

/**
 * The candidate key of a path under a prefix of `depth` segments: its number of `/` and its
 * segment after the prefix (`""` when it has none). One pass over the path, no array: it runs on
 * every request.
 */
const candidateKey = (path: string, depth: number) => {
  let n = 0
  let start = -1
  let end = path.length
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) !== 47) continue
    n++
    if (n === depth + 1) start = i + 1
    else if (n === depth + 2) end = i
  }
  return `${n} ${start < 0 ? "" : path.slice(start, end)}`
}

/**
 * A mount prefix as the router takes it: `""` for the root, `/payments` for `payments`,
 * `/payments/` or `/payments`. Anything that is not plain path segments is refused at start.
 *
 * @since 0.1.0
 */
export const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/\/+$/, "")
  if (trimmed === "") return ""
  const withSlash = trimmed.startsWith("/") ? trimmed : `/${trimmed}`
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(withSlash)) {
    throw new Error(`tender: the mount prefix must be path segments such as "/payments", got ${JSON.stringify(prefix)}`)
  }
  return withSlash
}

/** The route table under `prefix` (normalised first). @since 0.1.0 */
export const table = (prefix: string | undefined): Table => {
  const p = normalizePrefix(prefix)
  const routes = defined.map(({ endpoint, group, payloads }) => toRoute(p, endpoint, group, new Set(payloads.keys())))
  const depth = slashes(p)
  const candidates = new Map<string, Array<Route>>()
  for (const route of routes) {
    const key = candidateKey(route.path, depth)
    const space = key.indexOf(" ")
    const at = key.startsWith(":", space + 1) ? `${key.slice(0, space)} :` : key
    candidates.set(at, [...(candidates.get(at) ?? []), route])
  }
  return { prefix: p, routes, candidates, depth }
}

/** The routes whose pattern may match the path, in the order of the definition. */
const candidatesOf = (t: Table, path: string): ReadonlyArray<Route> => {
  const key = candidateKey(path, t.depth)
  const literal = t.candidates.get(key) ?? []
  const param = t.candidates.get(`${key.slice(0, key.indexOf(" "))} :`) ?? []
  if (param.length === 0) return literal
  if (literal.length === 0) return param
  return t.routes.filter((r) => literal.includes(r) || param.includes(r))
}

/** The methods defined for a path, sorted (405 `Allow`); empty for a path that is not Tender's. @since 0.1.0 */
export const methodsOf = (t: Table, path: string): ReadonlyArray<string> =>
  [...new Set(candidatesOf(t, path).filter((r) => r.pattern.test(path)).map((r) => r.method))].sort()

/** Whether the path is one of Tender's, with any method (a wrong method is still Tender's 405). @since 0.1.0 */
export const owns = (t: Table, path: string): boolean => candidatesOf(t, path).some((r) => r.pattern.test(path))

/** The endpoint for a method and path, matching parameters without decoding them. @since 0.1.0 */
export const find = (t: Table, method: string, path: string): Route | undefined =>
  candidatesOf(t, path).find((r) => r.method === method && r.pattern.test(path))

/** A path the URL parser leaves as it is: segments of unreserved characters other than `.`. */
const plainPath = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9_~/-]*)?$/

/** The path of a request URL (absolute, or a path with a query), without decoding it. @since 0.1.0 */
export const pathOf = (url: string): string => {
  // The common case, a plain path: the URL parser would return it unchanged (no dot segments,
  // no escapes to add, no leading "//" that would be read as a host), so it is not run.
  const end = url.search(/[?#]/)
  const head = end < 0 ? url : url.slice(0, end)
  if (plainPath.test(head)) return head
  try {
    return new URL(url, "http://localhost").pathname
  } catch {
    return url
  }
}

/** The longest path parameter value the router matches (find-my-way's `maxParamLength`). */
export const maxParamLength = 100

/**
 * Why the router found no route for a request whose path `find` matched (its `route`): a
 * parameter that is not a valid percent-encoded string, one longer than the router matches, or
 * dot segments (`/a/../b`, which the URL parser resolves and the router does not). @since 0.1.0
 */
export const pathProblem = (route: Route, url: string, path: string): { readonly param: string; readonly message: string } => {
  const undecodable = undecodableParam(route, path)
  if (undecodable !== undefined) return { param: undecodable, message: `The ${undecodable} in the path is not a valid percent-encoded string.` }
  const values = route.pattern.exec(path)?.slice(1) ?? []
  const long = route.params.find((_, i) => (values[i] ?? "").length > maxParamLength)
  if (long !== undefined) return { param: long, message: `The ${long} in the path is longer than ${maxParamLength} characters: no such ${long} exists.` }
  const end = url.search(/[?#]/)
  if (/(^|\/)\.{1,2}(\/|$)/.test(end < 0 ? url : url.slice(0, end))) {
    return { param: "path", message: "The path must not contain . or .. segments." }
  }
  return { param: "path", message: "The path does not name a resource in a form this API reads." }
}

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
