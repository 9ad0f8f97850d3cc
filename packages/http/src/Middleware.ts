/**
 * The middleware of the API. Around the whole API: a request id on every response, every
 * failure rendered as the D1 error body (it runs inside the error encoder, so decode failures,
 * malformed JSON and unknown routes never reach Effect's default bodies), and 404/405 from
 * the routes of the definition. Around endpoints: the implementations of `Authentication`
 * (5, D2; internal/authentication.ts) and `JsonBody` (internal/jsonBody.ts) declared in `Api`.
 * The D1 rendering is internal/errors.ts; the checks of a request's text internal/requestChecks.ts.
 *
 * @since 0.1.0
 */
import { FileSystem, HttpApiBuilder, HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Errors, Health, Ids, Merchants } from "@tender/core"
import type { Storage } from "@tender/core"
import { Cause, Context, Effect, FiberRef, Layer, Option } from "effect"
import { TenderApi } from "./Api.js"
import { authenticateWith, AuthenticationLive } from "./internal/authentication.js"
import * as Body from "./internal/body.js"
import * as Render from "./internal/errors.js"
import { JsonBodyLive } from "./internal/jsonBody.js"
import * as Observe from "./internal/observe.js"
import * as Routes from "./internal/routes.js"
import * as Uploads from "./internal/uploads.js"
import { Mount } from "./Mount.js"
import * as Upload from "./Upload.js"

/** The largest JSON body accepted: a create request is well under 16 KiB (D1). @since 0.1.0 */
export const maxJsonBodyBytes: number = Render.maxJsonBodyBytes

/** A JSON body sent as its UTF-8 bytes (internal/errors.ts says why bytes). @since 0.1.0 */
export const jsonText: typeof Render.jsonText = Render.jsonText

/** Send a rendered core response (a success, or an error core rendered and may replay, D5); `Retry-After` marks a 4.9.6 in-flight conflict. @since 0.1.0 */
export const toHttp: typeof Render.toHttp = Render.toHttp

/** Map Effect's decode issues to D1 `validation_failed` with `param` and `details`. @since 0.1.0 */
export const fromDecodeError: typeof Render.fromDecodeError = Render.fromDecodeError

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
      const res = yield* Render.renderError(
        new Errors.MethodNotAllowed({
          message: `${request.method} is not allowed on ${path}; allowed: ${methods.join(", ")}.`
        })
      )
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
export const layer = Layer.mergeAll(
  Observe.layerServerSpanWhenExported,
  Observe.layerSpanNames,
  HttpApiBuilder.middleware(
    TenderApi,
    Effect.map(Effect.zip(Effect.context<Merchants.Merchants | Mount | Storage.Storage>(), Health.cachedReadiness()), ([context, readiness]) => {
      const uploads = Uploads.bound(Context.get(context, Mount).maxConcurrentUploads)
      return (app: HttpApp.Default) =>
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
              FiberRef.update(
                FiberRef.currentContext,
                Context.add(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(bodyLimitOf(resolved.route, request.headers["content-type"]))))
              ),
              // An upload is worked on only while fewer than the bound are; past it, 503 at once.
              Uploads.isUpload(resolved.route, request.headers["content-type"])
                ? uploads(
                  app,
                  Effect.zipRight(
                    Effect.logDebug("tender: an upload was refused: the bound on uploads at once is reached"),
                    Render.renderError(Uploads.busy(), false)
                  )
                )
                : app
            )
          // A path none of Tender's routes has as written is a 404 here: the router would match it
          // whatever its case, with a trailing slash or doubled slashes (find-my-way's defaults), where a
          // mounted Tender's `owns` already lets it fall through to the host.
          // (A branch, not a `zipRight` of a no-op: a known path, nearly every request, takes no extra step.)
          const routed: Effect.Effect<
            Effect.Effect.Success<typeof limited>,
            Effect.Effect.Error<typeof limited> | HttpServerError.RouteNotFound,
            Effect.Effect.Context<typeof limited>
          > = resolved.route === undefined && !mount.owns(resolved.path)
            ? Effect.fail(new HttpServerError.RouteNotFound({ request }))
            : limited
          const response = yield* Observe.observed(
            request,
            resolved,
            requestId,
            routed.pipe(
              Effect.catchAllCause((cause) =>
                isRouteNotFound(cause)
                  ? routeNotFound(mount.routes, request).pipe(Effect.provide(context), Effect.catchAllCause(Render.renderCause))
                  : Render.renderCause(cause)
              )
            )
          )
          const withId = response.headers["request-id"] === undefined
            ? HttpServerResponse.setHeader(response, "request-id", requestId)
            : response
          // An answer sent before its body was read to the end (a 413, a refused part) closes the
          // connection: the rest of the body is never read, and must not stand before the next request.
          const closed = response.status === 413 || Body.leftUnread(request) ? HttpServerResponse.setHeader(withId, "connection", "close") : withId
          // A 503 is transient (a storage outage): say when to try again.
          const retry = response.status === 503 ? HttpServerResponse.setHeader(closed, "retry-after", "1") : closed
          return response.status === 401
            ? HttpServerResponse.setHeader(retry, "www-authenticate", "Basic realm=\"payments\"")
            : retry
        })
    })
  )
)
