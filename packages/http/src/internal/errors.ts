/**
 * Every failure of a request rendered as the D1 error body: decode issues as `validation_failed`
 * with `param` and `details`, the platform's own errors as theirs, a defect as a logged 500 whose
 * details are never sent. Also the JSON responses every answer is sent as.
 */
import { HttpApiError, HttpServerError, HttpServerResponse } from "@effect/platform"
import { ApiResponse, Errors, Idempotency } from "@tender/core"
import { Cause, Effect, Option } from "effect"
import * as Current from "./current.js"
import { isApiError } from "./errorSchema.js"
import * as IssueText from "./issueText.js"

/** The largest JSON body accepted: a create request is well under 16 KiB (D1). @internal */
export const maxJsonBodyBytes = 1024 * 1024

export const tooLarge = () => new Errors.PayloadTooLarge({ param: "body", message: `The request body is larger than ${maxJsonBodyBytes} bytes.` })

/**
 * A JSON body sent as its UTF-8 bytes, made by `Buffer.from` (native; `HttpServerResponse.text`
 * copies through a `TextEncoder`, 3 % of a list page's CPU, `BENCH_PROFILE=list npm run bench:profile`). Bytes rather than
 * the string: a list page's text is built for each request, and sent as a string it stayed on the
 * JavaScript heap long enough to be copied out of the young generation (about 17 KB a page); as
 * bytes it is off the heap. A memory list page's CPU fell to 0.84
 * (docs/performance.md, "HTTP and core"). Its length is known, so it is never chunked.
 *
 * @internal
 */
export const jsonText = (
  body: string,
  options: Omit<HttpServerResponse.Options, "contentType" | "contentLength"> = {}
): HttpServerResponse.HttpServerResponse => HttpServerResponse.uint8Array(Buffer.from(body), { ...options, contentType: "application/json" })

/** Send a rendered core response (a success, or an error core rendered and may replay, D5); `Retry-After` marks a 4.9.6 in-flight conflict. @internal */
export const toHttp = (response: ApiResponse.ApiResponse): HttpServerResponse.HttpServerResponse =>
  jsonText(response.body, {
    status: response.status,
    headers: {
      ...(response.replayed ? { "idempotent-replayed": "true", "request-id": response.requestId } : {}),
      ...(response.retryAfterSeconds === undefined ? {} : { "retry-after": String(response.retryAfterSeconds) })
    }
  })

/** Render an API error for the current request; a 5xx is logged, its details never sent (D1). */
export const renderError = (error: Errors.ApiError, log = error.status >= 500) =>
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

/** Map Effect's decode issues to D1 `validation_failed` with `param` and `details`. @internal */
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
export const renderCause = (cause: Cause.Cause<unknown>) => {
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
