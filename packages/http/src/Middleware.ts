/**
 * The middleware of the API. Around the whole API: a request id on every response, every
 * failure rendered as the D1 error body (it runs inside the error encoder, so decode failures,
 * malformed JSON and unknown routes never reach Effect's default bodies), and 404/405 from
 * the routes of the definition. Around endpoints: the implementations of `Authentication`
 * (5, D2) and `JsonBody` declared in `Api`.
 *
 * @since 0.1.0
 */
import { FileSystem, HttpApiBuilder, HttpApiError, HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { ApiResponse, Authentication as CoreAuthentication, Errors, Health, Idempotency, Ids, Merchants } from "@tender/core"
import type { Storage } from "@tender/core"
import { Cause, Context, Effect, FiberRef, Layer, Option } from "effect"
import { Authentication, JsonBody, TenderApi } from "./Api.js"
import { isApiError } from "./internal/errorSchema.js"
import * as Body from "./internal/body.js"
import * as IssueText from "./internal/issueText.js"
import * as Current from "./internal/current.js"
import * as Observe from "./internal/observe.js"
import * as Routes from "./internal/routes.js"
import { Mount } from "./Mount.js"
import * as Upload from "./Upload.js"

/** The largest JSON body accepted: a create request is well under 16 KiB (D1). @since 0.1.0 */
export const maxJsonBodyBytes = 1024 * 1024

/**
 * The deepest nesting of arrays and objects a JSON body may have. No valid request nests
 * beyond three levels; Effect's decoder formats a rejected value recursively, so a body
 * nested thousands deep would overflow the stack there (a 500) instead of getting its 400.
 */
const maxJsonDepth = 64

/** Whether `text` nests arrays and objects deeper than `max` (strings are skipped). */
const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

const tooLarge = () =>
  new Errors.PayloadTooLarge({ param: "body", message: `The request body is larger than ${maxJsonBodyBytes} bytes.` })

/**
 * A JSON body sent as its UTF-8 bytes, made by `Buffer.from` (native; `HttpServerResponse.text`
 * copies through a `TextEncoder`, 3 % of a list page's CPU in issue 22's profile). Bytes rather than
 * the string: a list page's text is built for each request, and sent as a string it stayed on the
 * JavaScript heap long enough to be copied out of the young generation (about 17 KB a page); as
 * bytes it is off the heap. A memory list page's CPU fell to 0.84 (docs/performance.md, issue 22,
 * sixth part). Its length is known, so it is never chunked.
 *
 * @since 0.1.0
 */
export const jsonText = (body: string, options: Omit<HttpServerResponse.Options, "contentType" | "contentLength"> = {}): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(Buffer.from(body), { ...options, contentType: "application/json" })

/** Send a rendered core response (a success, or an error core rendered and may replay, D5); `Retry-After` marks a 4.9.6 in-flight conflict. @since 0.1.0 */
export const toHttp = (response: ApiResponse.ApiResponse): HttpServerResponse.HttpServerResponse =>
  jsonText(response.body, {
    status: response.status,
    headers: {
      ...(response.replayed ? { "idempotent-replayed": "true", "request-id": response.requestId } : {}),
      ...(response.retryAfterSeconds === undefined ? {} : { "retry-after": String(response.retryAfterSeconds) })
    }
  })

/** Render an API error for the current request; a 5xx is logged, its details never sent (D1). */
const renderError = (error: Errors.ApiError, log = error.status >= 500) =>
  Effect.zipRight(
    log ? Effect.logError("tender: request failed", error) : Effect.void,
    Effect.map(Current.currentRequestId, (id) => toHttp(ApiResponse.fromError(error, id)))
  )

/**
 * Header schemas need lowercase keys; an error names a header as clients write it (D1). A Map:
 * the param is request text, and `__proto__` or `constructor` must not find Object's own members.
 */
const headerNames = new Map<string, string>([["idempotency-key", Idempotency.header]])

const paramOf = (path: ReadonlyArray<PropertyKey>) => {
  const param = path.map(String).join(".")
  return headerNames.get(param) ?? param
}

/** Map Effect's decode issues to D1 `validation_failed` with `param` and `details`. @since 0.1.0 */
export const fromDecodeError = (error: HttpApiError.HttpApiDecodeError): Errors.ValidationFailed => {
  // An optional field is `X | undefined`: a bad value also fails the `undefined` member. Drop that
  // echo when another issue names the field or a member inside it (`metadata.__proto__`).
  const issues = error.issues.filter((issue) => {
    if (!issue.message.startsWith("Expected undefined")) return true
    const param = paramOf(issue.path)
    return !error.issues.some((other) => {
      const at = paramOf(other.path)
      return other !== issue && (at === param || at.startsWith(`${param}.`))
    })
  })
  const details = IssueText.plain(issues.map((issue) => ({ param: paramOf(issue.path), tag: issue._tag, message: issue.message }))).map((issue) => {
    const param = issue.param
    if (param === "") return { message: "The request body must be a JSON object" }
    switch (issue.tag) {
      case "Missing":
        return { param, message: `${param} is required` }
      case "Unexpected":
        return { param, message: `${param} is not a known parameter` }
      default:
        return { param, message: /^(must|is) /.test(issue.message) ? `${param} ${issue.message}` : `${param}: ${issue.message}` }
    }
  })
  return Errors.ValidationFailed.many(details.length > 0 ? details : [{ message: "The request is invalid" }])
}

/** Turn any failure or defect into a D1 response; 5xx details go to the log only. */
const renderCause = (cause: Cause.Cause<unknown>) => {
  // Interrupted only: the client went away mid-request, or the host is stopping. Nobody reads
  // the answer and nothing failed, so nothing is logged as an error (a false alarm otherwise).
  if (Cause.isInterruptedOnly(cause)) {
    return renderError(new Errors.ServiceUnavailable({ message: "The request was interrupted: the server is stopping or the client went away." }), false)
  }
  const failure = Cause.failureOption(cause)
  const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
  if (error instanceof HttpApiError.HttpApiDecodeError) return renderError(fromDecodeError(error))
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RequestError" && error.cause instanceof Error && error.cause.message === "maxBytes exceeded") {
      return renderError(tooLarge())
    }
    if (error._tag === "RequestError" && error.reason === "Decode") {
      return renderError(Errors.ValidationFailed.at("body", "The request body is not valid JSON."))
    }
  }
  if (isApiError(error)) return renderError(error)
  return Effect.zipRight(
    Effect.logError("tender: unexpected failure", cause),
    renderError(new Errors.InternalError({ message: "unexpected failure" }))
  )
}

/**
 * What is wrong with the query of an authenticated request, if anything (D1: an unknown query
 * value is 400). A route that declares no query parameters takes none, as a list refuses a
 * parameter it does not know; and a name or value whose percent-escapes are not UTF-8 is refused,
 * not read with U+FFFD in its place (a `merchant_reference` filter would match nothing).
 */
const queryProblem = (url: string, route: Routes.Route | undefined): Errors.ValidationFailed | undefined => {
  const at = url.indexOf("?")
  if (at < 0) return undefined
  for (const pair of url.slice(at + 1).split("&")) {
    if (pair === "") continue
    const eq = pair.indexOf("=")
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const name = decodedQueryPart(rawName)
    if (name === undefined) return Errors.ValidationFailed.at("query", "A query parameter name is not a valid percent-encoded UTF-8 string.")
    if (name === "") continue
    if (route !== undefined && !route.query) return Errors.ValidationFailed.at(name, `${name} is not a known parameter`)
    if (eq >= 0 && decodedQueryPart(pair.slice(eq + 1)) === undefined) {
      return Errors.ValidationFailed.at(name, `${name} is not a valid percent-encoded UTF-8 string.`)
    }
  }
  return undefined
}

/** A query name or value decoded as forms are (`+` a space), or undefined when its escapes are not UTF-8. */
const decodedQueryPart = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.includes("+") ? text.replace(/\+/g, " ") : text)
  } catch {
    return undefined
  }
}

/** The caller, from the raw `Authorization` header (D2: see `Authentication` for why not the decoded credentials); then the query (D1). */
const authenticateWith = (merchants: Merchants.Merchants["Type"]) => {
  const principalOf = CoreAuthentication.authenticator(merchants)
  return Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) =>
      Effect.flatMap(CoreAuthentication.parseBasic(request.headers["authorization"]), principalOf).pipe(
        Effect.tap((principal) => Current.sawMerchant(principal.merchant.id)),
        Effect.tap(() => {
          if (!request.originalUrl.includes("?")) return Effect.void
          return Effect.flatMap(Observe.currentResolved, (resolved) => {
            const problem = queryProblem(request.originalUrl, resolved?.route)
            return problem === undefined ? Effect.void : Effect.fail(problem)
          })
        })
      )
  )
}

/**
 * `Authentication`: HttpApi's Basic decoding hands over empty credentials for a missing or
 * undecodable header, ignores the scheme and breaks on a `:` in the secret, so the raw header
 * is read and parsed by core (D2: `authentication_required` vs `invalid_api_key`). The
 * directory is taken once, here, rather than provided to every request.
 */
const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Merchants.Merchants, (merchants) => {
    const authenticate = authenticateWith(merchants)
    return Authentication.of({ basicAuth: () => authenticate })
  })
)

/**
 * The `charset` parameter of a `Content-Type`, lowercased and unquoted; undefined when absent.
 * A body is UTF-8 (RFC 8259 8.1): any other declared charset is refused, never reinterpreted.
 */
const charsetOf = (type: string): string | undefined => {
  for (const parameter of type.split(";").slice(1)) {
    const eq = parameter.indexOf("=")
    const name = (eq < 0 ? parameter : parameter.slice(0, eq)).trim().toLowerCase()
    if (name !== "charset") continue
    return eq < 0 ? "" : parameter.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").trim().toLowerCase()
  }
  return undefined
}

/** Strict UTF-8: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The body as text, read once as bytes and decoded strictly; then cached as the request's
 * `text`, which the payload decoder (`request.json`) and the handlers read. The platform's
 * requests read `text` and `arrayBuffer` each from the underlying body, which can be read only
 * once, and its `text` would replace bad bytes with U+FFFD: so the decoded text is installed
 * on the request object itself, shadowing its `text` getter (`json` reads `this.text`).
 */
const readUtf8Body = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const bytes = yield* Body.bytes(request, maxJsonBodyBytes).pipe(
      Effect.mapError((error) =>
        error._tag === "BodyTooLarge" ? tooLarge() : Errors.ValidationFailed.at("body", "The request body could not be read.")
      )
    )
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return yield* Effect.fail(Errors.ValidationFailed.at("body", "The request body is not valid UTF-8."))
    }
    Object.defineProperty(request, "text", { value: Effect.succeed(text), configurable: true, enumerable: false })
    return text
  })

/** `JsonBody`: the body is read once here, as strict UTF-8, and cached on the request; the decoder reuses this read. */
const JsonBodyLive = Layer.effect(
  JsonBody,
  Effect.map(Mount, (mount) => Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // The URL as sent: under a prefix the router hands the endpoint its URL with the prefix cut off.
    // The whole-API middleware resolved it already when it saw the same URL.
    const seen = yield* Observe.currentResolved
    const resolved = seen !== undefined && seen.url === request.originalUrl
      ? seen
      : Observe.resolve(mount, request.method, request.originalUrl)
    // Node joins the lines of a header sent twice with ", ", which is a key of its own: refused
    // instead (D5). Where the host hands over a fetch Request, the lines are joined before Tender sees them.
    const distinct = (request.source as { readonly headersDistinct?: Readonly<Record<string, ReadonlyArray<string> | undefined>> }).headersDistinct
    if ((distinct?.["idempotency-key"]?.length ?? 0) > 1) {
      return yield* Effect.fail(Errors.ValidationFailed.at(Idempotency.header, `${Idempotency.header} was sent more than once; send it once.`))
    }
    const uploads = resolved.route?.uploads === true
    if (uploads && Upload.isMultipart(request)) {
      // The file is streamed by the handler, cut off one byte past its limit (Upload.file).
      if (Number(request.headers["content-length"] ?? "0") > Upload.maxUploadBodyBytes) {
        return yield* Effect.fail(new Errors.PayloadTooLarge({
          param: "file",
          message: `The request body is larger than ${Upload.maxUploadBodyBytes} bytes: a file is at most 5 MiB.`
        }))
      }
      return
    }
    const type = request.headers["content-type"]
    if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
      return yield* Effect.fail(Errors.ValidationFailed.at(
        "Content-Type",
        uploads ? "Content-Type must be multipart/form-data (or application/json where the route takes an id)." : "Content-Type must be application/json."
      ))
    }
    const charset = type === undefined ? undefined : charsetOf(type)
    if (charset !== undefined && charset !== "utf-8") {
      return yield* Effect.fail(Errors.ValidationFailed.at(
        "Content-Type",
        "The request body must be UTF-8: send Content-Type application/json, with charset=utf-8 or no charset."
      ))
    }
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > maxJsonBodyBytes) return yield* Effect.fail(tooLarge())
    const text = yield* readUtf8Body(request)
    if (nestsDeeperThan(text, maxJsonDepth)) {
      return yield* Effect.fail(
        Errors.ValidationFailed.at("body", `The request body nests arrays and objects deeper than ${maxJsonDepth} levels.`)
      )
    }
  }))
)

/** The implementations of the endpoint middleware, for the group layers. @since 0.1.0 */
export const endpointLayer = Layer.merge(AuthenticationLive, JsonBodyLive)

const isRouteNotFound = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure) && HttpServerError.isServerError(failure.value) && failure.value._tag === "RouteNotFound"
}

/** What the router found no route for: an unknown path (404), a method the path lacks (405) or a bad escape. */
const routeNotFound = (table: Routes.Table, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const path = Routes.pathOf(request.url)
    const methods = Routes.methodsOf(table, path)
    if (methods.length === 0) {
      return yield* new Errors.ResourceNotFound({ message: `Unknown route ${request.method} ${path}.` })
    }
    const route = Routes.find(table, request.method, path)
    if (route === undefined) {
      const res = yield* renderError(new Errors.MethodNotAllowed({
        message: `${request.method} is not allowed on ${path}; allowed: ${methods.join(", ")}.`
      }))
      return HttpServerResponse.setHeader(res, "allow", methods.join(", "))
    }
    // The router matched no route, yet the path names an endpoint: a parameter it cannot decode or
    // match, or dot segments. The endpoint exists, so its authentication comes first (5).
    if (route.authenticated) yield* authenticateWith(yield* Merchants.Merchants)
    const problem = Routes.pathProblem(route, request.url, path)
    return yield* Errors.ValidationFailed.at(problem.param, problem.message)
  })

/** The body limit of a request: the file limit on the upload routes for a multipart body, 1 MiB of JSON otherwise. @since 0.1.0 */
export const bodyLimitOf = (route: Routes.Route | undefined, contentType: string | undefined) =>
  route?.uploads === true && Upload.isMultipartType(contentType)
    ? Upload.maxUploadBodyBytes
    : maxJsonBodyBytes

/**
 * The middleware around the whole API. Needs the merchant directory to authenticate a
 * request whose path the router cannot decode, and the `Mount`: beside a host's routes, a
 * path that is not Tender's passes through untouched (the host's route, or its 404). With it,
 * the platform's server span is left out of Tender's requests while no tracer exports spans
 * (`Observe.layerServerSpanWhenExported`), and named `{method} {route template}` (`Observe.layerSpanNames`).
 *
 * @since 0.1.0
 */
export const layer = Layer.mergeAll(Observe.layerServerSpanWhenExported, Observe.layerSpanNames, HttpApiBuilder.middleware(
  TenderApi,
  Effect.map(Effect.zip(Effect.context<Merchants.Merchants | Mount | Storage.Storage>(), Health.cachedReadiness()), ([context, readiness]) => (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const mount = Context.get(context, Mount)
      // Health routes are outside the merchant API: no authentication, no request id, no D1 body.
      // The route is resolved once here; every later step reads it (Observe.Resolved).
      const resolved = Observe.resolve(mount, request.method, request.url)
      const health = Observe.healthAnswer(mount, request, resolved.path, readiness)
      if (health !== undefined) return yield* Effect.provide(health, context)
      if (!mount.standalone && resolved.route === undefined && !mount.owns(resolved.path)) return yield* app
      const requestId = Ids.prefixes.request + Ids.randomBase62()
      // A chunked body without Content-Length is cut off at the same size while it streams in. No
      // GET or HEAD route reads a body: the limit, a fiber-local value to set, is left out there.
      // Set in the request's own fiber (as Observe.observed sets its locals), not provided around the
      // app (`withMaxBodySize`), whose acquire-use-release restores a value nothing reads afterwards.
      const limited = request.method === "GET" || request.method === "HEAD"
        ? app
        : Effect.zipRight(
          FiberRef.update(FiberRef.currentContext, Context.add(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(bodyLimitOf(resolved.route, request.headers["content-type"]))))),
          app
        )
      // A path none of Tender's routes has as written is a 404 here: the router would match it
      // whatever its case, with a trailing slash or doubled slashes (find-my-way's defaults), where a
      // mounted Tender's `owns` already lets it fall through to the host.
      // (A branch, not a `zipRight` of a no-op: a known path, nearly every request, takes no extra step.)
      const routed: Effect.Effect<Effect.Effect.Success<typeof limited>, Effect.Effect.Error<typeof limited> | HttpServerError.RouteNotFound, Effect.Effect.Context<typeof limited>> = resolved.route === undefined && !mount.owns(resolved.path)
        ? Effect.fail(new HttpServerError.RouteNotFound({ request }))
        : limited
      const response = yield* Observe.observed(request, resolved, requestId, routed.pipe(
        Effect.catchAllCause((cause) =>
          isRouteNotFound(cause)
            ? routeNotFound(mount.routes, request).pipe(Effect.provide(context), Effect.catchAllCause(renderCause))
            : renderCause(cause)
        )
      ))
      const withId = response.headers["request-id"] === undefined
        ? HttpServerResponse.setHeader(response, "request-id", requestId)
        : response
      // An answer sent before its body was read to the end (a 413, a refused part) closes the
      // connection: the rest of the body is never read, and must not stand before the next request.
      const closed = response.status === 413 || Body.leftUnread(request) ? HttpServerResponse.setHeader(withId, "connection", "close") : withId
      // A 503 is transient (a storage outage): say when to try again.
      const retry = response.status === 503 ? HttpServerResponse.setHeader(closed, "retry-after", "1") : closed
      return response.status === 401
        ? HttpServerResponse.setHeader(retry, "www-authenticate", 'Basic realm="payments"')
        : retry
    }))
))
