/**
 * The API-level middleware: a request id on every response, authentication (5, D2),
 * and every failure rendered as the D1 error body. It runs inside the error encoder, so
 * decode failures, malformed JSON and unknown routes never reach Effect's default bodies.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiError, HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { ApiResponse, Authentication, Errors, Idempotency, Ids, Merchants } from "@tender/core"
import { Cause, Effect, FiberRef, Option } from "effect"
import { TenderApi } from "./Api.js"
import * as Upload from "./Upload.js"

/** The id of the request being served (D1 `request_id`, `Request-Id` header). @since 0.1.0 */
export const CurrentRequestId = FiberRef.unsafeMake<string>("")

/** The authenticated caller, set for every route that needs one. @since 0.1.0 */
export const CurrentPrincipal = FiberRef.unsafeMake<Authentication.Principal | undefined>(undefined)

/** The caller, for handlers of authenticated routes. @since 0.1.0 */
export const principal = Effect.flatMap(FiberRef.get(CurrentPrincipal), (p) =>
  p === undefined ? Effect.dieMessage("no principal on an authenticated route") : Effect.succeed(p))

interface RouteEntry {
  readonly pattern: RegExp
  readonly methods: ReadonlyArray<string>
  readonly public: boolean
  readonly json?: boolean
  /** Takes a multipart file upload (up to `Upload.maxUploadBodyBytes`) as well as, or instead of, JSON. */
  readonly upload?: "only" | "or-json"
  /** The last path segment is the resource id (D1: a bad id format is a 400). */
  readonly pathId?: boolean
}

/** The routes, for 404 vs 405 and for which need no authentication (4.11, 5.5). @since 0.1.0 */
export const routes: ReadonlyArray<RouteEntry> = [
  { pattern: /^\/payment_intents$/, methods: ["GET", "POST"], public: false, json: true },
  { pattern: /^\/payment_intents\/[^/]+$/, methods: ["GET"], public: false, pathId: true },
  { pattern: /^\/payment_intents\/[^/]+\/confirm$/, methods: ["POST"], public: false, json: true, pathId: true },
  { pattern: /^\/payment_intents\/[^/]+\/receipt$/, methods: ["POST"], public: false, json: true, upload: "or-json", pathId: true },
  { pattern: /^\/assets$/, methods: ["POST"], public: false, upload: "only" },
  { pattern: /^\/payment_methods\/options$/, methods: ["GET"], public: false },
  { pattern: /^\/webhook_event_types$/, methods: ["GET"], public: true },
  { pattern: /^\/openapi\.json$/, methods: ["GET"], public: true }
]

/** The largest JSON body accepted: a create request is well under 16 KiB. @since 0.1.0 */
export const maxJsonBodyBytes = 1024 * 1024

/**
 * The deepest nesting of arrays and objects a JSON body may have. No valid request nests
 * beyond three levels; Effect's decoder formats a rejected value recursively, so a body
 * nested thousands deep would overflow the stack there (a 500) instead of getting its 400.
 *
 * @since 0.1.0
 */
export const maxJsonDepth = 64

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

const decodesAsPath = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

const tooLarge = () =>
  new Errors.PayloadTooLarge({ param: "body", message: `The request body is larger than ${maxJsonBodyBytes} bytes.` })

/** Send a rendered core response. @since 0.1.0 */
export const toHttp = (response: ApiResponse.ApiResponse): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(response.body, {
    status: response.status,
    contentType: "application/json",
    headers: response.replayed ? { "idempotent-replayed": "true", "request-id": response.requestId } : {}
  })

/** Render an API error for the current request; a 5xx is logged, its details never sent. @since 0.1.0 */
export const renderError = (error: Errors.ApiError) =>
  Effect.zipRight(
    error.status >= 500 ? Effect.logError("tender: request failed", error) : Effect.void,
    Effect.map(FiberRef.get(CurrentRequestId), (id) => toHttp(ApiResponse.fromError(error, id)))
  )

/** Header schemas need lowercase keys; the error names a header as clients write it (D1). */
const headerNames: Record<string, string> = { "idempotency-key": Idempotency.header }

const paramOf = (path: ReadonlyArray<PropertyKey>) => {
  const param = path.map(String).join(".")
  return headerNames[param] ?? param
}

/** Map Effect's decode issues to D1 `validation_failed` with `param` and `details`. @since 0.1.0 */
export const fromDecodeError = (error: HttpApiError.HttpApiDecodeError): Errors.ValidationFailed => {
  // An optional field is `X | undefined`: a bad value also fails the `undefined` member. Drop that echo.
  const issues = error.issues.filter((issue) =>
    !(issue.message.startsWith("Expected undefined") &&
      error.issues.some((other) => other !== issue && paramOf(other.path) === paramOf(issue.path)))
  )
  const details = issues.map((issue) => {
    const param = paramOf(issue.path)
    if (param === "") return { message: "The request body must be a JSON object" }
    switch (issue._tag) {
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

const isApiError = (u: unknown): u is Errors.ApiError =>
  typeof u === "object" && u !== null && "code" in u && "status" in u && "_tag" in u &&
  typeof (u as { status: unknown }).status === "number"

/** Turn any failure or defect into a D1 response; 5xx details go to the log only. */
const renderCause = (cause: Cause.Cause<unknown>) => {
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
    if (error._tag === "RouteNotFound") {
      return renderError(new Errors.ResourceNotFound({ message: "Unknown route." }))
    }
  }
  if (isApiError(error)) return renderError(error)
  return Effect.zipRight(
    Effect.logError("tender: unexpected failure", cause),
    renderError(new Errors.InternalError({ message: "unexpected failure" }))
  )
}

const pathOf = (url: string) => {
  try {
    return new URL(url, "http://localhost").pathname
  } catch {
    return url
  }
}

/**
 * The middleware around the whole API. Needs the merchant directory to authenticate.
 *
 * @since 0.1.0
 */
export const layer = HttpApiBuilder.middleware(
  TenderApi,
  Effect.map(Effect.context<Merchants.Merchants>(), (context) => (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = Ids.prefixes.request + Ids.randomBase62()
      const response = yield* Effect.gen(function*() {
        const path = pathOf(request.url)
        const route = routes.find((r) => r.pattern.test(path))
        if (route === undefined) {
          return yield* new Errors.ResourceNotFound({ message: `Unknown route ${request.method} ${path}.` })
        }
        if (!route.methods.includes(request.method)) {
          const res = yield* renderError(new Errors.MethodNotAllowed({
            message: `${request.method} is not allowed on ${path}; allowed: ${route.methods.join(", ")}.`
          }))
          return HttpServerResponse.setHeader(res, "allow", route.methods.join(", "))
        }
        let who: Authentication.Principal | undefined
        if (!route.public) {
          who = yield* Authentication.fromAuthorizationHeader(request.headers["authorization"]).pipe(
            Effect.provide(context),
            Effect.tapErrorTag("AuthenticationRequired", () => Effect.void)
          )
        }
        const uploading = request.method === "POST" && route.upload !== undefined && Upload.isMultipart(request)
        const bodyLimit = uploading ? Upload.maxUploadBodyBytes : maxJsonBodyBytes
        if (uploading && Number(request.headers["content-length"] ?? "0") > bodyLimit) {
          return yield* new Errors.PayloadTooLarge({ param: "file", message: `The request body is larger than ${bodyLimit} bytes: a file is at most 5 MiB.` })
        }
        if (request.method === "POST" && route.json === true && !uploading) {
          const type = request.headers["content-type"]
          if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
            return yield* Errors.ValidationFailed.at(
              "Content-Type",
              route.upload === undefined ? "Content-Type must be application/json." : "Content-Type must be application/json or multipart/form-data."
            )
          }
          const length = Number(request.headers["content-length"] ?? "0")
          if (length > maxJsonBodyBytes) return yield* tooLarge()
          // The body is read once and cached by the request: the decoder reuses this read.
          const text = yield* request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(maxJsonBodyBytes)))
          // A fetch-style host's request ignores the size limit while streaming: check what arrived.
          if (Buffer.byteLength(text, "utf8") > maxJsonBodyBytes) return yield* tooLarge()
          if (nestsDeeperThan(text, maxJsonDepth)) {
            return yield* Errors.ValidationFailed.at("body", `The request body nests arrays and objects deeper than ${maxJsonDepth} levels.`)
          }
        }
        if (route.pathId === true && !decodesAsPath(path)) {
          return yield* Errors.ValidationFailed.at("id", "The id in the path is not a valid percent-encoded string.")
        }
        // A chunked body without Content-Length is cut off at the same size while it streams in.
        return yield* Effect.locally(app, CurrentPrincipal, who).pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(bodyLimit))
        )
      }).pipe(
        Effect.locally(CurrentRequestId, requestId),
        Effect.catchAllCause((cause) => Effect.locally(renderCause(cause), CurrentRequestId, requestId))
      )
      const withId = response.headers["request-id"] === undefined
        ? HttpServerResponse.setHeader(response, "request-id", requestId)
        : response
      // After a 413 the rest of the body is never read: close the connection (STACK.md).
      const closed = response.status === 413 ? HttpServerResponse.setHeader(withId, "connection", "close") : withId
      // A 503 is transient (a storage outage): say when to try again.
      const retry = response.status === 503 ? HttpServerResponse.setHeader(closed, "retry-after", "1") : closed
      return response.status === 401
        ? HttpServerResponse.setHeader(retry, "www-authenticate", 'Basic realm="payments"')
        : retry
    }))
)
