/**
 * Request bodies of the upload routes (4.4, D3): the `file` part of a multipart upload,
 * parsed as it streams in (multipasta) and kept in memory only up to one
 * byte past the 5 MiB limit, so an oversized file costs no more than the limit; and the
 * small JSON bodies of the same routes.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import { Asset, Errors } from "@tender/core"
import { Effect, Stream } from "effect"
import * as MP from "multipasta"
import * as Body from "./internal/body.js"

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

const tooLarge = () =>
  new Errors.PayloadTooLarge({ param: "file", message: `The request body is larger than ${maxUploadBodyBytes} bytes: a file is at most 5 MiB.` })

const unreadable = () => invalid("body", "The multipart body could not be read.")

/**
 * The bytes of the one part named `file`, at most `Asset.maxBytes` + 1 of them (one more is
 * enough to refuse it). Any other part, or no file, is a 400; a body past
 * `maxUploadBodyBytes` is a 413 having read no further (internal/body.ts).
 *
 * The body is fed to multipasta's parser chunk by chunk, and the parser's answers are looked
 * at after each chunk: a refused part stops the read at once. (The platform's multipart
 * stream was not used: a file part whose body fails or ends before its boundary never ends
 * there, and its reader spins for ever, which would let one truncated upload take a core.)
 *
 * @since 0.1.0
 */
export const file = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Uint8Array, Errors.ValidationFailed | Errors.PayloadTooLarge> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let files = 0
    let refused: Errors.ValidationFailed | Errors.PayloadTooLarge | undefined
    let done = false
    const refuse = (error: Errors.ValidationFailed | Errors.PayloadTooLarge) => {
      refused ??= error
    }
    const parser = MP.make({
      headers: request.headers,
      // Fields are refused, so none needs more room than this to be named in the answer.
      maxFieldSize: 64 * 1024,
      onField: (info) => refuse(invalid(info.name, `${info.name} is not a known part; send the file in the part named file`)),
      onFile: (info) => {
        if (info.name !== "file") refuse(invalid(info.name, `${info.name} is not a known part; send the file in the part named file`))
        else if (++files > 1) refuse(invalid("file", "Send one file."))
        return (chunk) => {
          // Keep no more than one byte past the limit.
          if (chunk === null || refused !== undefined || size > Asset.maxBytes) return
          const room = Asset.maxBytes + 1 - size
          const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
          chunks.push(kept)
          size += kept.length
        }
      },
      onError: (error) => refuse(error._tag === "ReachedLimit" && error.limit !== "MaxParts" && error.limit !== "MaxFieldSize" ? tooLarge() : unreadable()),
      onDone: () => {
        done = true
      }
    })
    return Body.stream(request, maxUploadBodyBytes).pipe(
      Stream.mapError((error) => (error._tag === "BodyTooLarge" ? tooLarge() : unreadable())),
      Stream.runForEachWhile((chunk) =>
        Effect.sync(() => {
          parser.write(chunk)
          return refused === undefined
        })
      ),
      Effect.flatMap(() => {
        if (refused === undefined && !done) parser.end()
        if (refused !== undefined) return Effect.fail(refused)
        if (files === 0) return Effect.fail(invalid("file", "file is required: send the file in the part named file"))
        return Effect.succeed(Buffer.concat(chunks))
      })
    )
  })
