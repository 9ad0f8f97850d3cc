/**
 * Request bodies of the upload routes (4.4, D3): the `file` part of a multipart upload,
 * read with the platform's multipart parser as a stream and kept in memory only up to one
 * byte past the 5 MiB limit, so an oversized file costs no more than the limit; and the
 * small JSON bodies of the same routes.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import { Multipart } from "@effect/platform"
import { Asset, Errors } from "@tender/core"
import { Chunk, Effect, Option, Stream } from "effect"

/**
 * The largest multipart body read: the file limit and room for the part headers and
 * boundaries. A file of exactly 5 MiB fits; a larger body is 413 before it is read whole.
 *
 * @since 0.1.0
 */
export const maxUploadBodyBytes = Asset.maxBytes + 64 * 1024

/** Whether a Content-Type is a multipart upload's. @since 0.1.0 */
export const isMultipartType = (type: string | undefined) => /^multipart\/form-data\s*(;|$)/i.test(type ?? "")

/** Whether the request is a multipart upload. @since 0.1.0 */
export const isMultipart = (request: HttpServerRequest.HttpServerRequest) => isMultipartType(request.headers["content-type"])

const invalid = (param: string, message: string) => Errors.ValidationFailed.at(param, message)

/**
 * The bytes of the one part named `file`, at most `Asset.maxBytes` + 1 of them (one more is
 * enough to refuse it). Any other part, or no file, is a 400.
 *
 * @since 0.1.0
 */
export const file = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Uint8Array, Errors.ValidationFailed> =>
  Effect.gen(function*() {
    let found: Uint8Array | undefined
    yield* request.multipartStream.pipe(
      Stream.mapError(() => invalid("body", "The multipart body could not be read.")),
      Stream.runForEach((part) =>
        Effect.gen(function*() {
          if (!Multipart.isFile(part) || part.key !== "file") {
            return yield* invalid(part.key, `${part.key} is not a known part; send the file in the part named file`)
          }
          if (found !== undefined) return yield* invalid("file", "Send one file.")
          const chunks = yield* part.content.pipe(
            Stream.mapError(() => invalid("file", "The file could not be read.")),
            // Read no further than one byte past the limit.
            Stream.mapAccum(0, (seen, chunk) => [seen + chunk.length, { seen, chunk }] as const),
            Stream.takeWhile(({ seen }) => seen <= Asset.maxBytes),
            Stream.map(({ chunk }) => chunk),
            Stream.runCollect
          )
          const bytes = Buffer.concat(Chunk.toReadonlyArray(chunks))
          found = bytes.length > Asset.maxBytes ? bytes.subarray(0, Asset.maxBytes + 1) : bytes
        })
      )
    )
    return yield* Option.match(Option.fromNullable(found), {
      onNone: () => Effect.fail(invalid("file", "file is required: send the file in the part named file")),
      onSome: Effect.succeed
    })
  })
