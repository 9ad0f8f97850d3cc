/**
 * How a Promise API call runs: the core operation on the instance's runtime (the same
 * services the HTTP handlers use), its answer turned into a value or a `TenderError`. A core
 * operation that renders its own answer (creates and other POSTs, which store it for their
 * `Idempotency-Key`, D5) hands over the value it rendered; only a replay, whose stored answer is
 * text alone, is parsed, so the Promise API answers what a replayed HTTP request would.
 */
import { HttpApiError } from "@effect/platform"
import type { ApiResponse } from "@tender/core"
import { Errors, Ids } from "@tender/core"
import * as Middleware from "@tender/http/Middleware"
import type { ManagedRuntime } from "effect"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { TenderError, type TenderErrorCode } from "../TenderError.js"

/** A request id of the Promise API, in the form the HTTP API uses (`req_…`). */
export const requestId = (): string => `${Ids.prefixes.request}${Ids.randomBase62()}`

interface WireError {
  readonly code: TenderErrorCode
  readonly message: string
  readonly param?: string
  readonly details?: ReadonlyArray<{ readonly param?: string; readonly message: string }>
}

const fromWire = (status: number, error: WireError, id: string): TenderError =>
  new TenderError({ code: error.code, status, message: error.message, param: error.param, details: error.details, requestId: id })

/** A core error as the D1 body renders it (a 5xx message never carries internals). */
export const fromApiError = (error: Errors.ApiError, id: string): TenderError =>
  fromWire(error.status, (Errors.errorBody(error, id) as { error: WireError }).error, id)

/** A rendered core answer: its value, or the `TenderError` its D1 body describes. */
export const fromResponse = (response: ApiResponse.ApiResponse): unknown => {
  // A replay (D5) carries the stored text alone.
  const body: unknown = "value" in response ? response.value : JSON.parse(response.body)
  if (response.status >= 400) throw fromWire(response.status, (body as { error: WireError }).error, response.requestId)
  return body
}

const isApiError = (u: unknown): u is Errors.ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof (u as { status?: unknown }).status === "number" &&
  typeof (u as { code?: unknown }).code === "string"

/** An expected outcome (an API error or a `TenderError` with a 4xx status), if the cause is one. */
const expected = (cause: Cause.Cause<unknown>): { readonly status: number; readonly code: string } | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return undefined
  const error = isApiError(failure.value) || failure.value instanceof TenderError ? failure.value : undefined
  return error !== undefined && error.status < 500 ? error : undefined
}

/**
 * Run `effect` to a Promise on `runtime`. A failure that is an API error becomes its
 * `TenderError`. A 4xx is the operation's answer, not a fault (a payout approved after its
 * cancel is a 409 the host expects): logged at debug only. A 5xx or a defect is logged at
 * error through the host's logger, as the HTTP API logs a 5xx; a defect rejects with
 * `internal_error`.
 */
export const run = <A, R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>, make: (requestId: string) => Effect.Effect<A, unknown, R>): Promise<A> => {
  const id = requestId()
  const logged = make(id).pipe(
    Effect.tapErrorCause((cause) => {
      const outcome = expected(cause)
      return outcome === undefined
        ? Effect.logError("tender: operation failed", cause)
        : Effect.logDebug(`tender: operation answered ${outcome.status} ${outcome.code}`)
    }),
    Effect.annotateLogs("request_id", id)
  )
  return runtime.runPromiseExit(logged).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure) && isApiError(failure.value)) throw fromApiError(failure.value, id)
    if (Option.isSome(failure) && failure.value instanceof TenderError) throw failure.value
    throw fromApiError(new Errors.InternalError({ message: "unexpected failure" }), id)
  })
}

/**
 * Decode host input with the schema the HTTP API decodes the same input with: a bad value is
 * the same D1 `validation_failed`, naming the same `param`.
 */
export const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, Errors.ValidationFailed> =>
  Schema.decodeUnknown(schema)(input).pipe(
    Effect.catchAll((e) => Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (d) => Effect.fail(Middleware.fromDecodeError(d))))
  )

/**
 * A list query as its URL would carry it: the list schemas decode query strings, so numbers
 * and booleans are written as text and an array as its comma-separated form.
 */
export const asQuery = (query: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue
    out[key] = Array.isArray(value) ? value.map(String).join(",") : typeof value === "number" || typeof value === "boolean" ? String(value) : value
  }
  return out
}
