/**
 * `JsonBody`: the request's headers and body checked before the payload decoder reads it (D1, D5),
 * the body read once, as strict UTF-8, at most `maxJsonBodyBytes`.
 */
import { HttpServerRequest } from "@effect/platform"
import { Errors, Idempotency } from "@tender/core"
import { Effect, Layer } from "effect"
import { JsonBody } from "../Api.js"
import { Mount } from "../Mount.js"
import * as Upload from "../Upload.js"
import * as Body from "./body.js"
import { maxJsonBodyBytes, tooLarge } from "./errors.js"
import * as Observe from "./observe.js"
import * as Platform from "./platformInternals.js"
import { charsetOf, maxJsonDepth, nestsDeeperThan } from "./requestChecks.js"

/** Strict UTF-8: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The body as text, read once as bytes and decoded strictly (the platform's `text` would replace bad
 * bytes with U+FFFD, and the body can be read only once): the payload decoder then reads this text
 * from the request `JsonBody` provides (docs/upstream.md, "The decoded body").
 */
const readUtf8Body = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const bytes = yield* Body.bytes(request, maxJsonBodyBytes).pipe(
      Effect.mapError((error) => error._tag === "BodyTooLarge" ? tooLarge() : Errors.ValidationFailed.at("body", "The request body could not be read."))
    )
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return yield* Effect.fail(Errors.ValidationFailed.at("body", "The request body is not valid UTF-8."))
    }
    return text
  })

/** `JsonBody`: the body is read once here, as strict UTF-8; the request it provides answers `text` with it, for the decoder and the handlers. */
export const JsonBodyLive = Layer.effect(
  JsonBody,
  Effect.map(Mount, (mount) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      // The URL as sent: under a prefix the router hands the endpoint its URL with the prefix cut off.
      // The whole-API middleware resolved it already when it saw the same URL.
      const seen = yield* Observe.currentResolved
      const resolved = seen !== undefined && seen.url === request.originalUrl
        ? seen
        : Observe.resolve(mount, request.method, request.originalUrl)
      // A key sent twice would be joined with ", " into a key of its own: refused instead (D5).
      if (Platform.headerLines(request, "idempotency-key") > 1) {
        return yield* Effect.fail(Errors.ValidationFailed.at(Idempotency.header, `${Idempotency.header} was sent more than once; send it once.`))
      }
      const uploads = resolved.route?.uploads === true
      if (uploads && Upload.isMultipart(request)) {
        // The file is streamed by the handler, cut off one byte past its limit (Upload.file).
        if (Number(request.headers["content-length"] ?? "0") > Upload.maxUploadBodyBytes) {
          return yield* Effect.fail(
            new Errors.PayloadTooLarge({
              param: "file",
              message: `The request body is larger than ${Upload.maxUploadBodyBytes} bytes: a file is at most 5 MiB.`
            })
          )
        }
        return request
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
      return Platform.withText(request, text)
    }))
)
