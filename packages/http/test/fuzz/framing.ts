/**
 * The crash fuzzer's attacks below the JSON: bodies cut short or abandoned, broken
 * chunk framing, headers too large or of odd bytes, broken request lines, bodies in the wrong
 * encoding and bodies over their limits. Each says whether the server may close without an
 * answer (`mayDrop`): only a request the fuzzer abandoned, or whose HTTP framing is broken
 * once the body has begun (the answer may already be on its way; Node then closes).
 */
import fc from "fast-check"
import { authorization, headerText } from "./generators.js"
import { common, headOf, jsonBody, type Known, target } from "./requests.js"
import type { Wire } from "./wire.js"

const MiB = 1024 * 1024
const json = ["Content-Type", "application/json"] as const

/** A body cut short: Content-Length says more than is sent, or no last chunk; then our side ends or resets. */
export const truncatedRequest = (known: Known, abort: boolean): fc.Arbitrary<Wire> =>
  fc.tuple(target(known), jsonBody, fc.nat({ max: 100 }), fc.integer({ min: 1, max: 100_000 }), fc.boolean(), authorization, fc.constantFrom(0, 0, 0, 300_000))
    .map(([t, body, cutPercent, missing, chunked, auth, fill]) => {
      const payload = Buffer.from(body, "utf8")
      const sent = payload.subarray(0, Math.floor((payload.length * cutPercent) / 100))
      const method = t.method === "GET" || t.method === "HEAD" ? "POST" : t.method
      const declared = payload.length + fill + missing
      return {
        category: abort ? "aborted mid-body (reset)" : "truncated body (half-close)",
        label: `${method} ${t.route.path}`,
        head: headOf(method, t.path, [...common(auth, undefined), json, chunked ? ["Transfer-Encoding", "chunked"] : ["Content-Length", String(declared)]]),
        pieces: fill > 0 ? [sent, { fill }] : [sent],
        framing: chunked ? "chunked" : "raw",
        end: abort ? "abort" : "half",
        mayDrop: true,
        hosted: t.hosted
      } satisfies Wire
    })

/** Chunked bodies with broken framing: bad sizes, missing CRLFs, extensions, trailers. */
const badChunks = fc.constantFrom(
  "zz\r\n{}\r\n0\r\n\r\n",
  "-1\r\n{}\r\n0\r\n\r\n",
  "ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n",
  "2\r\n{}0\r\n\r\n",
  "2\r\n{}\r\n",
  "2;ext=1\r\n{}\r\n0\r\n\r\n",
  "2;" + "e".repeat(20_000) + "\r\n{}\r\n0\r\n\r\n",
  "2\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n",
  "2\r\n{}\r\n0\r\nbad trailer\r\n\r\n",
  "5\r\n{}\r\n0\r\n\r\n",
  "1\r\n{\r\n1\r\n}\r\n0\r\n\r\n",
  "2\n{}\n0\n\n",
  " 2\r\n{}\r\n0\r\n\r\n",
  "0x2\r\n{}\r\n0\r\n\r\n",
  "\r\n\r\n",
  "0\r\n\r\n",
  "0\r\n\r\nGET / HTTP/1.1\r\n\r\n"
)

export const badChunkedRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(target(known), badChunks, authorization, fc.constantFrom("chunked", "chunked", "Chunked", "gzip, chunked", "chunked, chunked", "identity, chunked"))
    .map(([t, chunks, auth, te]) => {
      const method = t.method === "GET" || t.method === "HEAD" ? "POST" : t.method
      return {
        category: "bad chunk framing",
        label: `${method} ${t.route.path}`,
        head: headOf(method, t.path, [...common(auth, undefined), json, ["Transfer-Encoding", te]]),
        pieces: [Buffer.from(chunks, "latin1")],
        framing: "raw",
        end: "half",
        mayDrop: true,
        hosted: t.hosted
      } satisfies Wire
    })

/** Headers past `maxHeaderSize` (16 KiB): one huge value, very many headers, a huge URL. */
export const hugeHeaderRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(target(known), fc.constantFrom("value", "many", "url", "name"), fc.integer({ min: 8 * 1024, max: 80 * 1024 }), authorization).map(
    ([t, kind, n, auth]) => {
      const extra: Array<readonly [string, string]> = kind === "value" ?
        [["X-Big", "v".repeat(n)]]
        : kind === "many" ?
        Array.from({ length: Math.floor(n / 16) }, (_, i) => [`X-H${i}`, "1"] as const)
        : kind === "name" ?
        [["X-" + "n".repeat(n), "1"]]
        : []
      const path = kind === "url" ? t.path.split("?")[0] + "?q=" + "u".repeat(n) : t.path
      return {
        category: "huge headers or URL",
        label: `${t.method} ${t.route.path}`,
        head: headOf(t.method, path, [...common(auth, undefined), ...extra]),
        pieces: [],
        framing: "raw",
        end: "wait",
        mayDrop: false,
        head_only: t.method === "HEAD",
        hosted: t.hosted
      } satisfies Wire
    }
  )

/** Request lines and headers Node's parser or Tender must refuse, or take as they are. */
const oddVariant = fc.oneof(
  headerText(60).map((v) => ({ name: "odd header value bytes", headers: [["X-Odd", v]] as Array<readonly [string, string]> })),
  fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 30 }).map((v) => ({
    name: "control bytes in a value",
    raw: `X-Ctl: ${v}\r\n`
  })),
  fc.string({ unit: fc.integer({ min: 33, max: 255 }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 20 }).filter((n) => !n.includes(":")).map((
    n
  ) => ({ name: "odd header name bytes", raw: `${n}: 1\r\n` })),
  fc.constantFrom(
    { name: "no colon", raw: "NoColonHere\r\n" },
    { name: "obs-fold", raw: "X-Fold: a\r\n  folded\r\n" },
    { name: "space before colon", raw: "X-Space : 1\r\n" },
    { name: "two Content-Length", raw: "Content-Length: 2\r\nContent-Length: 3\r\n", body: "{}" },
    { name: "Content-Length and Transfer-Encoding", raw: "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", body: "2\r\n{}\r\n0\r\n\r\n" },
    { name: "bad Content-Length", raw: "Content-Length: -1\r\n", body: "{}" },
    { name: "bad Content-Length", raw: "Content-Length: 1e3\r\n", body: "{}" },
    { name: "bad Content-Length", raw: "Content-Length: 99999999999999999999\r\n", body: "{}" },
    { name: "unknown Transfer-Encoding", raw: "Transfer-Encoding: gzip\r\n", body: "{}" },
    { name: "Content-Encoding gzip, not gzip", raw: "Content-Encoding: gzip\r\nContent-Type: application/json\r\nContent-Length: 2\r\n", body: "{}" },
    { name: "Expect 100-continue", raw: "Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\n", body: "{}" },
    { name: "Expect other", raw: "Expect: something-else\r\n" },
    { name: "Upgrade", raw: "Upgrade: websocket\r\nConnection: Upgrade\r\n" },
    { name: "Upgrade h2c", raw: "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n" },
    { name: "two Host", raw: "Host: other.example\r\n" },
    { name: "no Host", noHost: true },
    { name: "HTTP/1.0", version: "HTTP/1.0" },
    { name: "HTTP/2.0 version", version: "HTTP/2.0" },
    { name: "HTTP/9.9 version", version: "HTTP/9.9" },
    { name: "lowercase version", version: "http/1.1" },
    { name: "bad method", method: "FOO" },
    { name: "lowercase method", method: "get" },
    { name: "CONNECT", method: "CONNECT" },
    { name: "TRACE", method: "TRACE" },
    { name: "absolute-form target", absolute: true },
    { name: "bare LF line endings", bareLf: true },
    { name: "garbage request line", garbage: "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" },
    { name: "garbage request line", garbage: "GET\r\n\r\n" },
    { name: "garbage request line", garbage: "\r\n\r\n\r\n" },
    { name: "space in target", spaceInPath: true }
  )
)

type Variant = {
  name: string
  headers?: Array<readonly [string, string]>
  raw?: string
  body?: string
  noHost?: boolean
  version?: string
  method?: string
  absolute?: boolean
  bareLf?: boolean
  garbage?: string
  spaceInPath?: boolean
}

export const oddHeaderRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(target(known), oddVariant as fc.Arbitrary<Variant>, authorization).map(([t, v, auth]) => {
    const method = v.method ?? t.method
    const headers = common(auth, undefined).filter(([k]) => !(v.noHost === true && k === "Host"))
    let head = headOf(method, v.absolute === true ? `http://127.0.0.1${t.path}` : v.spaceInPath === true ? t.path + " x" : t.path, [
      ...headers,
      ...(v.headers ?? [])
    ], v.version)
    if (v.raw !== undefined) head = head.slice(0, -2) + v.raw + "\r\n"
    if (v.bareLf === true) head = head.replaceAll("\r\n", "\n")
    if (v.garbage !== undefined) head = v.garbage
    return {
      category: `odd request line or headers`,
      label: `${v.name}: ${method} ${t.route.path}`,
      head,
      pieces: v.body === undefined ? [] : [Buffer.from(v.body, "latin1")],
      framing: "raw",
      end: "wait",
      // A body Node cannot frame may be refused after Tender began its answer: Node then closes.
      mayDrop: v.body !== undefined && v.name !== "Expect 100-continue" && !v.name.startsWith("Content-Encoding"),
      head_only: method === "HEAD",
      hosted: t.hosted
    } satisfies Wire
  })

/** JSON bodies in the wrong encoding: invalid UTF-8, UTF-16, a BOM, charsets. */
export const badEncodingRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(
    target(known).filter((t) => t.route.method === "POST"),
    fc.constantFrom("invalid UTF-8", "overlong UTF-8", "UTF-16LE with BOM", "UTF-8 BOM", "latin1 bytes", "NUL bytes", "lone surrogate bytes"),
    fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=utf-16",
      "application/json; charset=latin1",
      "application/json; charset=\xff",
      "text/plain"
    ),
    authorization,
    fc.boolean()
  ).map(([t, kind, type, auth, chunked]) => {
    const good =
      "{\"amount\":\"150000\",\"currency\":\"THB\",\"country\":\"TH\",\"checkout_mode\":\"merchant\",\"payment_method\":\"th_promptpay\",\"customer\":{\"name\":\"NAME\"}}"
    const body = kind === "invalid UTF-8" ?
      Buffer.from(good.replace("NAME", "\xff\xfe\xc3("), "latin1")
      : kind === "overlong UTF-8" ?
      Buffer.from(good.replace("NAME", "\xc0\xaf\xe0\x80\xaf"), "latin1")
      : kind === "UTF-16LE with BOM" ?
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(good, "utf16le")])
      : kind === "UTF-8 BOM" ?
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good)])
      : kind === "latin1 bytes" ?
      Buffer.from(good.replace("NAME", "Jos\xe9"), "latin1")
      : kind === "NUL bytes" ?
      Buffer.from(good.replace("NAME", "\0\0"), "latin1")
      : Buffer.from(good.replace("NAME", "\xed\xa0\x80"), "latin1")
    return {
      category: "bad encodings and charsets",
      label: `${kind}: POST ${t.route.path}`,
      head: headOf("POST", t.path, [
        ...common(auth, undefined),
        ["Content-Type", type],
        chunked ? ["Transfer-Encoding", "chunked"] : ["Content-Length", String(body.length)]
      ]),
      pieces: [body],
      framing: chunked ? "chunked" : "raw",
      end: "wait",
      mayDrop: false,
      hosted: t.hosted
    } satisfies Wire
  })

/** JSON bodies past the 1 MiB limit, or a declared length past it: 413. */
export const oversizedJsonRequest = (known: Known): fc.Arbitrary<Wire> =>
  fc.tuple(target(known).filter((t) => t.route.method === "POST" && !t.route.uploads), fc.constantFrom(MiB + 1, 2 * MiB, 10 * MiB), fc.boolean(), authorization)
    .map(([t, n, chunked, auth]) =>
      ({
        category: "JSON over 1 MiB",
        label: `POST ${t.route.path}`,
        head: headOf("POST", t.path, [...common(auth, undefined), json, chunked ? ["Transfer-Encoding", "chunked"] : ["Content-Length", String(n + 13)]]),
        pieces: [Buffer.from("{\"amount\":\""), { fill: n }, Buffer.from("\"}")],
        framing: chunked ? "chunked" : "raw",
        end: "wait",
        mayDrop: false,
        hosted: t.hosted
      }) satisfies Wire
    )
