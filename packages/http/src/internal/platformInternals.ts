/**
 * What Tender reads of `@effect/platform`'s requests beyond their declared types, in this one place
 * (docs/upstream.md, "Reading bodies"): `request.source` (typed `unknown`) as the Node
 * `IncomingMessage` or the web `Request` it is, and a request whose `text` is a body already read.
 * Internals.test.ts checks each on the pinned platform.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/** The members of a Node `IncomingMessage` read here (no `node:http` import: any Readable does). */
export interface NodeBody {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown
  on(event: "end" | "close", listener: () => void): unknown
  on(event: "error", listener: (error: unknown) => void): unknown
  off(event: string, listener: (...args: Array<any>) => void): unknown
  resume(): unknown
  readonly readableEnded: boolean
  readonly destroyed: boolean
}

const isNodeBody = (source: unknown): source is NodeBody =>
  typeof source === "object" && source !== null && typeof (source as NodeBody).on === "function" &&
  typeof (source as NodeBody).resume === "function" && "readableEnded" in source

/** The object the platform wraps (an `IncomingMessage` on Node, a `Request` elsewhere), or undefined. */
export const sourceOf = (request: HttpServerRequest.HttpServerRequest): object | undefined =>
  typeof request.source === "object" && request.source !== null ? request.source : undefined

/** The Node body under `request`, or undefined where the host hands over something else. */
export const nodeBodyOf = (request: HttpServerRequest.HttpServerRequest): NodeBody | undefined => isNodeBody(request.source) ? request.source : undefined

/** The web body under `request` (fetch-style hosts): a stream, or null/undefined when there is none. */
export const webBodyOf = (request: HttpServerRequest.HttpServerRequest): ReadableStream<Uint8Array> | null | undefined =>
  (request.source as { readonly body?: ReadableStream<Uint8Array> | null } | null)?.body

/**
 * How many lines of header `name` the request came with. Node joins the lines of a header sent
 * twice with ", " and keeps them apart in `headersDistinct`; where the host hands over a fetch
 * `Request`, the lines are joined before Tender sees them: one.
 */
export const headerLines = (request: HttpServerRequest.HttpServerRequest, name: string): number =>
  (request.source as { readonly headersDistinct?: Readonly<Record<string, ReadonlyArray<string> | undefined>> } | null)
    ?.headersDistinct?.[name]?.length ?? (request.headers[name] === undefined ? 0 : 1)

/**
 * `request` whose `text` is `text`: everything else, `json` included (it reads `this.text`), is the
 * request's own. The platform's request is not changed: the handlers get this one from `JsonBody`.
 */
export const withText = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest =>
  Object.create(request, { text: { value: Effect.succeed(text), enumerable: false } })
