/**
 * A local stand-in of a provider's HTTP API, checked against the provider's published OpenAPI
 * description: every request must be an operation of the description, with parameters the
 * description allows; every answer is checked against the operation's response schema. A
 * request the description does not allow is refused (answered with the provider's error shape)
 * and recorded in `refusals`, so a test that asserts `refusals` is empty fails. The provider's
 * behaviour (state, lifecycle, notifications) is the `handle` function a provider module
 * gives; `@tender/stripe/testing` (form bodies, HTTP) and `@tender/adyen/testing` (JSON bodies,
 * HTTPS with the test certificate of `TestTls`) are two, each beside its adapter.
 *
 * @since 0.1.0
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { decodeForm, type FormValue } from "./internal/standin/form.js"
import { type MatchedOperation, OpenApi, type OpenApiExtract } from "./internal/standin/openapi.js"

/**
 * What a provider's stand-in module (`@tender/stripe/testing`, `@tender/adyen/testing`) builds on:
 * its extract's loader and type, and the EMVCo tag-length-value and CRC of the QR payloads it answers.
 *
 * @since 0.1.0
 */
export { crc16, tlv } from "./internal/standin/emvco.js"
/** @since 0.1.0 */
export { loadExtract, type MatchedOperation, type OpenApiExtract } from "./internal/standin/openapi.js"

/** A request the stand-in refused, or an answer of its own that failed the description. @since 0.1.0 @category models */
export interface Refusal {
  /** `request`: the client sent what the description does not allow; `response`: the stand-in's own answer broke it. */
  readonly kind: "request" | "response"
  readonly method: string
  readonly path: string
  readonly problems: ReadonlyArray<string>
}

/** A request that passed the description, as a provider module handles it. @since 0.1.0 @category models */
export interface StandInRequest {
  readonly operation: MatchedOperation
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly query: Readonly<Record<string, unknown>>
  /** The form body coerced to the schema's types, or the JSON body as sent. */
  readonly body: Readonly<Record<string, unknown>>
  /** The raw body text, for idempotency fingerprints. */
  readonly rawBody: string
}

/** An answer: a status and a JSON body. @since 0.1.0 @category models */
export interface StandInAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A fault a test injects: the next matching request gets it instead of an answer. @since 0.1.0 @category models */
export type StandInFault =
  | { readonly _tag: "Status"; readonly status: number; readonly body: unknown }
  | { readonly _tag: "Disconnect" }
  /** No answer at all: the client's own timeout ends the request (the connection is closed with the stand-in). */
  | { readonly _tag: "Hang" }

/** What a provider module gives the framework. @since 0.1.0 @category models */
export interface StandInBehaviour {
  readonly name: string
  readonly extract: OpenApiExtract
  /** How request bodies are sent: Stripe's `form` (the default) or `json`. */
  readonly bodyFormat?: "form" | "json" | undefined
  /** Serve HTTPS with this key and certificate (PEM) instead of HTTP. */
  readonly tls?: { readonly key: string; readonly cert: string } | undefined
  /** The provider's error body for a refused or unroutable request. */
  readonly refusal: (problems: ReadonlyArray<string>, status: number) => unknown
  /** Checks beyond the description (authentication, version headers): an answer refuses the request. */
  readonly precheck?: ((request: IncomingMessage) => { answer: StandInAnswer; problems: ReadonlyArray<string> | null } | null) | undefined
  readonly handle: (request: StandInRequest) => StandInAnswer | Promise<StandInAnswer>
  /**
   * The operations (operationIds) `handle` answers: their checks are compiled when the stand-in
   * starts, so no request pays for it; every operation of the extract when not given. Another
   * operation's checks compile when a request first needs them.
   */
  readonly serves?: ReadonlyArray<string> | undefined
  /** Component schemas the provider module checks itself (`checkComponent`: events, notifications), compiled at start too. */
  readonly components?: ReadonlyArray<string> | undefined
}

/** A running stand-in. @since 0.1.0 @category models */
export interface StandIn {
  /** `http://127.0.0.1:PORT`, or `https://` with `tls`. */
  readonly url: string
  readonly port: number
  /** Every refused request and every self-check failure, in order: a test asserts it is empty. */
  readonly refusals: Array<Refusal>
  /** Every request that reached the provider's behaviour, in order. */
  readonly requests: Array<StandInRequest>
  /** Every request answered with an injected fault instead, in order. */
  readonly faulted: Array<StandInRequest>
  /** Makes the next request (of the operation, when given) fail with the fault. */
  readonly injectFault: (fault: StandInFault, operationId?: string) => void
  /** Makes every request (of the operation, when given) fail with the fault until called with `null`: the provider is down. */
  readonly outage: (fault: StandInFault | null, operationId?: string) => void
  readonly close: () => Promise<void>
}

const openApis = new WeakMap<OpenApiExtract, OpenApi>()

/** One `OpenApi` per extract: its validators compile once per process. @since 0.1.0 @category constructors */
export const openApiOf = (extract: OpenApiExtract): OpenApi => {
  let api = openApis.get(extract)
  if (api === undefined) {
    api = new OpenApi(extract)
    openApis.set(extract, api)
  }
  return api
}

const MAX_BODY = 1024 * 1024

const readBody = (req: IncomingMessage): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        resolve(null)
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const send = (res: ServerResponse, answer: StandInAnswer): void => {
  const text = JSON.stringify(answer.body)
  res.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...answer.headers })
  res.end(text)
}

const checkForm = (api: OpenApi, operation: MatchedOperation, query: Record<string, FormValue>, rawBody: string) => {
  const form = decodeForm(rawBody)
  const checked = api.checkRequest(operation, query, rawBody === "" ? null : form.value)
  return { query: checked.query, body: checked.body, problems: [...form.problems, ...checked.problems] }
}

const checkJson = (api: OpenApi, operation: MatchedOperation, query: Record<string, FormValue>, rawBody: string) => {
  const checked = api.checkRequest(operation, query, null)
  let body: unknown = null
  if (rawBody !== "") {
    try {
      body = JSON.parse(rawBody)
    } catch {
      return { query: checked.query, body: {}, problems: [...checked.problems, "body: not valid JSON"] }
    }
  }
  const problems = [...checked.problems, ...api.checkJsonBody(operation, body)]
  return { query: checked.query, body: (body ?? {}) as Record<string, unknown>, problems }
}

/**
 * Starts a stand-in on 127.0.0.1 on a free port, once the checks of the operations it serves
 * are compiled (once per process and extract): compiled by a first request instead, Stripe's
 * payment intents held the test process for seconds on a loaded machine, past a client's timeout.
 *
 * @since 0.1.0 @category constructors
 */
export const start = async (behaviour: StandInBehaviour): Promise<StandIn> => {
  const api = openApiOf(behaviour.extract)
  await api.compile(behaviour.serves, behaviour.components)
  const refusals: Array<Refusal> = []
  const requests: Array<StandInRequest> = []
  const faulted: Array<StandInRequest> = []
  const faults: Array<{ fault: StandInFault; operationId: string | undefined }> = []
  let down: { fault: StandInFault; operationId: string | undefined } | null = null

  const refuse = (res: ServerResponse, method: string, path: string, problems: ReadonlyArray<string>, status = 400) => {
    refusals.push({ kind: "request", method, path, problems })
    send(res, { status, body: behaviour.refusal(problems, status) })
  }

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET"
    const url = new URL(req.url ?? "/", "http://stand-in")
    const rawBody = await readBody(req)
    if (rawBody === null) return refuse(res, method, url.pathname, ["body larger than 1 MiB"], 413)
    const operation = api.match(method, url.pathname)
    if (operation === null) {
      return refuse(res, method, url.pathname, [`${method} ${url.pathname} is not an operation of the description`], 404)
    }
    const pre = behaviour.precheck?.(req)
    if (pre != null) {
      if (pre.problems !== null) refusals.push({ kind: "request", method, path: url.pathname, problems: pre.problems })
      return send(res, pre.answer)
    }
    const type = req.headers["content-type"] ?? ""
    const expected = behaviour.bodyFormat === "json" ? "application/json" : "application/x-www-form-urlencoded"
    if (rawBody !== "" && !type.startsWith(expected)) {
      return refuse(res, method, url.pathname, [`body sent as ${type || "no content type"}, the description takes ${expected}`])
    }
    const query = decodeForm(url.search.slice(1))
    const checked = behaviour.bodyFormat === "json"
      ? checkJson(api, operation, query.value as Record<string, FormValue>, rawBody)
      : checkForm(api, operation, query.value as Record<string, FormValue>, rawBody)
    const problems = [...query.problems, ...checked.problems]
    if (problems.length > 0) return refuse(res, method, url.pathname, problems)
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v]))
    const request: StandInRequest = { operation, headers, query: checked.query, body: checked.body, rawBody }
    const i = faults.findIndex((f) => f.operationId === undefined || f.operationId === operation.operationId)
    const failing = i !== -1
      ? faults.splice(i, 1)[0]!
      : down !== null && (down.operationId === undefined || down.operationId === operation.operationId)
      ? down
      : null
    if (failing !== null) {
      faulted.push(request)
      const { fault } = failing
      if (fault._tag === "Disconnect") {
        req.socket.destroy()
        return
      }
      if (fault._tag === "Hang") return
      return send(res, { status: fault.status, body: fault.body })
    }
    requests.push(request)
    const answer = await behaviour.handle(request)
    const broken = api.checkResponse(operation, answer.status, answer.body)
    if (broken.length > 0) refusals.push({ kind: "response", method, path: url.pathname, problems: broken })
    send(res, answer)
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((error: unknown) => {
      refusals.push({ kind: "response", method: req.method ?? "", path: req.url ?? "", problems: [`the stand-in threw: ${String(error)}`] })
      if (!res.headersSent) send(res, { status: 500, body: behaviour.refusal(["the stand-in failed"], 500) })
      else res.destroy()
    })
  }
  const server: Server = behaviour.tls === undefined
    ? createServer(listener)
    : createHttpsServer({ key: behaviour.tls.key, cert: behaviour.tls.cert }, listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `${behaviour.tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    port,
    refusals,
    requests,
    faulted,
    injectFault: (fault, operationId) => faults.push({ fault, operationId }),
    outage: (fault, operationId) => {
      down = fault === null ? null : { fault, operationId }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Formats refusals for an assertion message. @since 0.1.0 @category utils */
export const formatRefusals = (refusals: ReadonlyArray<Refusal>): string =>
  refusals.map((r) => `${r.kind} ${r.method} ${r.path}:\n  ${r.problems.join("\n  ")}`).join("\n")
