/**
 * The crash fuzzer's requests: fast-check arbitraries of whole HTTP/1.1 requests as
 * bytes, at every route and method of the API. The routes come from the API definition
 * (`internal/routes.ts`), so a new endpoint is fuzzed without a change here. Field-level junk
 * comes from `generators.ts`, shared with the in-process fuzzer; the framing-level attacks
 * (truncated, aborted, bad chunks, huge and odd headers) are in `framing.ts`.
 */
import fc from "fast-check"
import { HostedCheckoutGroup } from "../../src/hostedCheckout/HostedRoutes.js"
import * as Routes from "../../src/internal/routes.js"
import {
  authorization,
  bases,
  contentType,
  discoveryParams,
  fieldPaths,
  headerText,
  idempotencyKey,
  listParams,
  mutate,
  mutationsOf,
  pathId,
  query,
  queryText,
  topupBases,
  topupPaths,
  weirdValue
} from "./generators.js"
import type { Piece, Wire } from "./wire.js"

/** Ids that exist in the target (created before the run), so paths reach the handlers' depths. */
export interface Known {
  readonly ids: ReadonlyArray<string>
  /** The signed query of a hosted checkout link (`?expires=…&signature=…`). */
  readonly hostedQuery: string
  readonly hostedId: string
}

/** Every endpoint of the API, as defined. */
export const routes = Routes.table("").routes

const hostedPaths = new Set<string>(Object.values(HostedCheckoutGroup.endpoints).map((e) => e.path))
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const

/** A route, a method (mostly its own) and a concrete path with query. */
export const target = (known: Known) =>
  fc.tuple(
    fc.constantFrom(...routes),
    fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...methods) }),
    fc.array(pathId([...known.ids, known.hostedId]), { minLength: 4, maxLength: 4 }),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant("") },
      { weight: 2, arbitrary: fc.constant(known.hostedQuery) },
      {
        weight: 2,
        arbitrary: query([...listParams, ...discoveryParams, "source_type", "expires", "signature"], [["limit", "2"], ["country", "TH"], ["amount", "150000"], [
          "currency",
          "THB"
        ]])
      },
      { weight: 1, arbitrary: fc.array(queryText, { maxLength: 3 }).map((q) => "?" + q.join("&")) }
    )
  ).map(([route, method, ids, q]) => {
    let i = 0
    const path = route.path.replace(/:[A-Za-z_]+/g, () => ids[i++]!)
    return { route, method: method ?? route.method, path: path + q, hosted: hostedPaths.has(route.path) }
  })

export type Target = ReturnType<typeof target> extends fc.Arbitrary<infer T> ? T : never

/** Headers every request carries unless a framing attack says otherwise. */
export const common = (auth: string | undefined, idem: string | undefined) => [
  ["Host", "127.0.0.1"] as const,
  ...(auth === undefined ? [] : [["Authorization", auth] as const]),
  ...(idem === undefined ? [] : [["Idempotency-Key", idem] as const]),
  ["Connection", "close"] as const
]

/** A header value as bytes: characters above 255 as their UTF-8 bytes, each one latin1 char. */
export const bytes = (s: string) => Buffer.from(s, "utf8").toString("latin1")

export const headOf = (method: string, path: string, headers: ReadonlyArray<readonly [string, string]>, version = "HTTP/1.1") =>
  `${method} ${path} ${version}\r\n` + headers.map(([k, v]) => `${k}: ${bytes(v)}\r\n`).join("") + "\r\n"

/** A JSON-ish body: any JSON value, a valid create body mutated, or a weird value. */
export const jsonBody = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "") },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom(...bases), mutationsOf(fieldPaths)).map(([b, ms]) =>
      JSON.stringify(ms.reduce<unknown>((x, m) => mutate(x, m.path, m.value, m.remove), b))
    )
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...topupBases), mutationsOf(topupPaths)).map(([b, ms]) =>
      JSON.stringify(ms.reduce<unknown>((x, m) => mutate(x, m.path, m.value, m.remove), b))
    )
  },
  { weight: 2, arbitrary: fc.constantFrom(...bases, ...topupBases).map((b) => JSON.stringify(b)) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom("http://127.0.0.1:9/hook", "https://example.com/h", "ftp://x", "", "http://[::1]:0/"), fc.option(weirdValue)).map((
      [url, events]
    ) => JSON.stringify({ url, ...(events === null ? {} : { enabled_events: events }) }))
  },
  { weight: 1, arbitrary: fc.constantFrom("asst_" + "Z".repeat(24)).map((asset_id) => JSON.stringify({ asset_id })) },
  { weight: 1, arbitrary: weirdValue.map((v) => JSON.stringify(v) ?? "") },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) }
)

/** JSON of random shapes at a route: Content-Length, or chunked split at random places. */
export const jsonRequest = (known: Known, chunked: boolean): fc.Arbitrary<Wire> =>
  fc.tuple(
    target(known),
    jsonBody,
    fc.oneof({ weight: 3, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: contentType }),
    authorization,
    idempotencyKey,
    fc.array(fc.nat({ max: 400 }), { maxLength: 6 })
  )
    .map(([t, body, type, auth, idem, splits]) => {
      const payload = Buffer.from(body, "utf8")
      const hasBody = t.method !== "GET" && t.method !== "HEAD"
      const headers = [...common(auth, idem), ...(type === undefined ? [] : [["Content-Type", type] as const])]
      const framing = hasBody ? (chunked ? [["Transfer-Encoding", "chunked"] as const] : [["Content-Length", String(payload.length)] as const]) : []
      return {
        category: chunked ? "JSON, chunked" : "JSON, Content-Length",
        label: `${t.method} ${t.route.path}`,
        head: headOf(t.method, t.path, [...headers, ...framing]),
        pieces: hasBody ? [payload] : [],
        framing: hasBody && chunked ? "chunked" : "raw",
        splits,
        end: "wait",
        mayDrop: false,
        head_only: t.method === "HEAD",
        hosted: t.hosted
      } satisfies Wire
    })

/** Query strings of every GET route. */
export const queryRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(target(known), authorization).map(([t, auth]) => ({
    category: "query strings, path ids",
    label: `GET ${t.route.path}`,
    head: headOf("GET", t.path, common(auth, undefined)),
    pieces: [],
    framing: "raw",
    end: "wait",
    mayDrop: false,
    hosted: t.hosted
  }))

const boundaryChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? "
const boundary = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...boundaryChars.split("")), minLength: 1, maxLength: 70 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "-", "a".repeat(71), "a".repeat(300), "\"quoted\"", "b\u00e9") },
  { weight: 1, arbitrary: headerText(40) }
)

/** Sizes of a part's content: small, around the 5 MiB upload limit (4.4), and past it. */
const MiB = 1024 * 1024
const partSize = fc.oneof(
  { weight: 30, arbitrary: fc.nat({ max: 2000 }) },
  { weight: 1, arbitrary: fc.constantFrom(5 * MiB - 1, 5 * MiB, 5 * MiB + 1, 6 * MiB, 20 * MiB) }
)

const part = fc.record({
  name: fc.oneof({ weight: 4, arbitrary: fc.constant("file") }, { weight: 1, arbitrary: headerText(20) }),
  filename: fc.option(fc.oneof(fc.constant("receipt.png"), headerText(30)), { nil: undefined }),
  type: fc.option(fc.constantFrom("image/png", "image/jpeg", "application/pdf", "text/plain", "application/json", "", "image/png; charset=x"), {
    nil: undefined
  }),
  start: fc.constantFrom("\x89PNG\r\n\x1a\n", "%PDF-1.4\n", "\xff\xd8\xff", "", "{}", "GIF89a"),
  size: partSize
})

/** Multipart with random parts, sizes and boundaries, some broken (mismatched or no closing boundary). */
export const multipartRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(
    fc.oneof({
      weight: 3,
      arbitrary: fc.constantFrom(...routes.filter((r) => r.uploads)).chain((r) =>
        target(known).map((t) => ({
          ...t,
          route: r,
          method: r.method,
          hosted: hostedPaths.has(r.path),
          path: t.path.replace(/^[^?]*/, r.path.replace(/:[A-Za-z_]+/g, known.ids[0]!))
        }))
      )
    }, { weight: 1, arbitrary: target(known) }),
    boundary,
    fc.array(part, { maxLength: 4 }),
    fc.constantFrom("ok", "ok", "ok", "no-close", "other-boundary", "no-boundary-param", "no-crlf"),
    fc.boolean(),
    authorization,
    idempotencyKey
  ).map(([t, b, parts, shape, chunked, auth, idem]) => {
    const pieces: Array<Piece> = []
    const sep = shape === "other-boundary" ? b + "x" : b
    for (const p of parts) {
      const disposition = `form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}`
      pieces.push(
        Buffer.from(`--${sep}\r\nContent-Disposition: ${disposition}\r\n${p.type === undefined ? "" : `Content-Type: ${p.type}\r\n`}\r\n${p.start}`, "latin1")
      )
      if (p.size > 0) pieces.push({ fill: p.size })
      pieces.push(Buffer.from(shape === "no-crlf" ? "" : "\r\n"))
    }
    if (shape !== "no-close") pieces.push(Buffer.from(`--${sep}--\r\n`, "latin1"))
    const total = pieces.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.fill), 0)
    const type = shape === "no-boundary-param" ? "multipart/form-data" : `multipart/form-data; boundary=${b}`
    return {
      category: total > 5 * MiB ? "multipart, over 5 MiB" : "multipart, random parts",
      label: `${t.method} ${t.route.path}`,
      head: headOf(t.method, t.path, [
        ...common(auth, idem),
        ["Content-Type", type],
        chunked ? ["Transfer-Encoding", "chunked"] : ["Content-Length", String(total)]
      ]),
      pieces,
      framing: chunked ? "chunked" : "raw",
      end: "wait",
      mayDrop: false,
      head_only: t.method === "HEAD",
      hosted: t.hosted
    } satisfies Wire
  })
