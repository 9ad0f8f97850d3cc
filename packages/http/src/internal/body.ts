/**
 * Reading a request body so that no body can end the host's process or lose its answer.
 *
 * The platform's own readers are not used for bodies: on Node they destroy a request they stop
 * reading early, which destroys the socket, so a body over its limit got no 413 at all; and
 * the Node multipart parser emits its limit error on a file stream nobody listens to any more,
 * an uncaught `'error'` that ended the host's process (docs/reliability.md). Here a
 * body is counted as it streams in and cut off one byte past its limit; a request is never
 * destroyed; and a body left unread is remembered, so the answer closes the connection
 * (`leftUnread`) instead of leaving the rest of the body in the way of the next request.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Chunk, Data, Effect, Stream } from "effect"
import * as Platform from "./platformInternals.js"
import type { NodeBody } from "./platformInternals.js"

/** The body is larger than its limit. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The body could not be read: the client went away, or the stream failed. */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable") {}

/** Requests whose body was not read to its end: their answer must close the connection. */
const unread = new WeakSet<object>()

/** Whether the request's body was left partly unread (the answer then closes the connection). */
export const leftUnread = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = Platform.sourceOf(request)
  return source !== undefined && unread.has(source)
}

const markUnread = (source: unknown) => {
  if (typeof source === "object" && source !== null) unread.add(source)
}

/** Tender's four listeners on a Node body. */
interface Listeners {
  readonly onData: (chunk: Uint8Array) => void
  readonly onEnd: () => void
  readonly onError: () => void
  readonly onClose: () => void
}

const attach = (body: NodeBody, l: Listeners) => {
  body.on("data", l.onData)
  body.on("end", l.onEnd)
  body.on("error", l.onError)
  body.on("close", l.onClose)
}

/**
 * Takes Tender's listeners off; a body not read to its end is marked unread and let flow to
 * nowhere (`resume`), so the socket stays whole for the answer, which then closes it.
 */
const detach = (body: NodeBody, l: Listeners, ended: boolean) => {
  body.off("data", l.onData)
  body.off("end", l.onEnd)
  body.off("close", l.onClose)
  // An error after this point (a client that resets mid-body) must still have a listener.
  body.off("error", l.onError)
  body.on("error", ignore)
  if (!ended) {
    markUnread(body)
    body.resume()
  }
}

/**
 * A Node body: `data` events counted; one past the limit fails. Stopping early removes only
 * Tender's listeners and lets the rest flow to nowhere (`resume`): the socket stays whole for
 * the answer, which then closes it.
 */
const fromNode = (body: NodeBody, limit: number): Stream.Stream<Uint8Array, BodyTooLarge | BodyUnreadable> =>
  body.readableEnded
    ? Stream.empty
    : Stream.asyncPush<Uint8Array, BodyTooLarge | BodyUnreadable>((emit) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          let seen = 0
          let ended = false
          const onData = (chunk: Uint8Array) => {
            seen += chunk.byteLength
            if (seen > limit) emit.fail(new BodyTooLarge({ limit }))
            else emit.single(chunk)
          }
          const onEnd = () => {
            ended = true
            emit.end()
          }
          const onError = () => emit.fail(new BodyUnreadable())
          const onClose = () => {
            if (!ended) emit.fail(new BodyUnreadable())
          }
          const listeners = { onData, onEnd, onError, onClose }
          attach(body, listeners)
          return () => detach(body, listeners, ended)
        }),
        (release) => Effect.sync(release)
      )
    )

const ignore = () => {}

/** A web body (fetch-style hosts): counted the same way; stopping early cancels the stream. */
const fromWeb = (
  source: unknown,
  body: ReadableStream<Uint8Array>,
  limit: number
): Stream.Stream<Uint8Array, BodyTooLarge | BodyUnreadable> => {
  let ended = false
  return Stream.fromReadableStream({ evaluate: () => body, onError: () => new BodyUnreadable() }).pipe(
    Stream.mapAccumEffect(0, (seen, chunk) => {
      const total = seen + chunk.byteLength
      return total > limit ? Effect.fail(new BodyTooLarge({ limit })) : Effect.succeed([total, chunk] as const)
    }),
    Stream.onEnd(Effect.sync(() => {
      ended = true
    })),
    Stream.ensuring(Effect.sync(() => {
      if (!ended) markUnread(source)
    }))
  )
}

/**
 * The request's body as a stream of at most `limit` bytes: one byte more fails with
 * `BodyTooLarge`, having read no further.
 */
export const stream = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Stream.Stream<Uint8Array, BodyTooLarge | BodyUnreadable> => {
  const node = Platform.nodeBodyOf(request)
  if (node !== undefined) return fromNode(node, limit)
  const body = Platform.webBodyOf(request)
  return body === null || body === undefined ? Stream.empty : fromWeb(request.source, body, limit)
}

/** One buffer of the chunks read. */
const concat = (all: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (all.length === 1) return all[0]!
  const out = new Uint8Array(all.reduce((n, c) => n + c.byteLength, 0))
  let at = 0
  for (const c of all) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/**
 * A whole Node body, with the same listeners, counting and release as `fromNode`, but collected
 * by one callback instead of a `Stream`: every JSON request reads its body this way, and the
 * stream's channel, queue and scope were a visible share of an in-memory create
 * (docs/performance.md, "HTTP and core"). Interruption releases as `fromNode`'s scope does.
 */
const bytesFromNode = (body: NodeBody, limit: number): Effect.Effect<Uint8Array, BodyTooLarge | BodyUnreadable> =>
  body.readableEnded
    ? Effect.succeed(new Uint8Array(0))
    : Effect.async<Uint8Array, BodyTooLarge | BodyUnreadable>((resume) => {
      const chunks: Array<Uint8Array> = []
      let seen = 0
      let ended = false
      let released = false
      const release = () => {
        if (released) return
        released = true
        detach(body, listeners, ended)
      }
      const fail = (error: BodyTooLarge | BodyUnreadable) => {
        release()
        resume(Effect.fail(error))
      }
      const onData = (chunk: Uint8Array) => {
        if (released) return
        seen += chunk.byteLength
        if (seen > limit) fail(new BodyTooLarge({ limit }))
        else chunks.push(chunk)
      }
      const onEnd = () => {
        if (released) return
        ended = true
        release()
        resume(Effect.succeed(concat(chunks)))
      }
      const onError = () => {
        if (!released) fail(new BodyUnreadable())
      }
      const onClose = () => {
        if (!released && !ended) fail(new BodyUnreadable())
      }
      const listeners = { onData, onEnd, onError, onClose }
      attach(body, listeners)
      return Effect.sync(release)
    })

/** The whole body, at most `limit` bytes. */
export const bytes = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Uint8Array, BodyTooLarge | BodyUnreadable> => {
  const node = Platform.nodeBodyOf(request)
  return node !== undefined
    ? bytesFromNode(node, limit)
    : Effect.map(Stream.runCollect(stream(request, limit)), (chunks) => concat(Chunk.toReadonlyArray(chunks)))
}
