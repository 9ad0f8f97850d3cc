/**
 * Raw HTTP/1.1 over `node:net` for the crash fuzzer: a generated request is written
 * byte for byte (so the framing is the fuzzer's: Content-Length or chunked, truncated, aborted,
 * broken), and the answer is parsed by hand, so a malformed response is seen as such.
 */
import { connect } from "node:net"

/** What goes on the wire after the head: bytes, or `fill` bytes of filler sent in 64 KiB writes. */
export type Piece = Buffer | { readonly fill: number }

/** One generated request. */
export interface Wire {
  /** The hostile-input category, for the summary table (docs/reliability.md). */
  readonly category: string
  /** What the request aimed at (`POST /payment_intents`), for a failure report. */
  readonly label: string
  /** The request line and headers, CRLFCRLF included: latin1, each char one byte. */
  readonly head: string
  readonly pieces: ReadonlyArray<Piece>
  /** `chunked`: each piece is sent as chunks (split at `splits` within a Buffer) and a last chunk; `raw`: as is. */
  readonly framing: "raw" | "chunked"
  readonly splits?: ReadonlyArray<number>
  /** After the pieces: wait for the answer; `half`: end our side first (a truncated body); `abort`: reset. */
  readonly end: "wait" | "half" | "abort"
  /** Whether the server may close without an answer: the fuzzer aborted it, or its framing is broken. */
  readonly mayDrop: boolean
  /** A HEAD request: the answer has no body. */
  readonly head_only?: boolean
  /** A hosted checkout page (HTML for a browser): a 4xx may be its HTML page instead of D1 JSON. */
  readonly hosted?: boolean
}

export interface Response {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Buffer
}

export type Outcome =
  | { readonly kind: "answer"; readonly response: Response }
  | { readonly kind: "dropped"; readonly received: number }
  | { readonly kind: "aborted" }
  | { readonly kind: "timeout" }
  | { readonly kind: "malformed"; readonly reason: string; readonly raw: string }

type Parsed = Response | "incomplete" | { readonly malformed: string }

/** Decode a chunked body; undefined while incomplete. */
const dechunk = (buf: Buffer): Buffer | undefined | { malformed: string } => {
  const parts: Array<Buffer> = []
  let at = 0
  for (;;) {
    const eol = buf.indexOf("\r\n", at)
    if (eol < 0) return undefined
    const size = parseInt(buf.subarray(at, eol).toString("latin1").split(";")[0]!, 16)
    if (!Number.isFinite(size) || size < 0) return { malformed: "bad chunk size in the answer" }
    if (size === 0) return buf.indexOf("\r\n", eol + 2) < 0 ? undefined : Buffer.concat(parts)
    if (buf.length < eol + 2 + size + 2) return undefined
    parts.push(buf.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}

/** Parse one response from `buf` (interim 1xx answers skipped); `closed`: no more bytes will come. */
export const parse = (buf: Buffer, closed: boolean, headOnly = false): Parsed => {
  const end = buf.indexOf("\r\n\r\n")
  if (end < 0) return closed ? { malformed: "no complete response head" } : "incomplete"
  const lines = buf.subarray(0, end).toString("latin1").split("\r\n")
  const m = /^HTTP\/1\.[01] (\d{3}) [^\r\n]*$/.exec(lines[0] ?? "")
  if (m === null) return { malformed: `bad status line ${JSON.stringify(lines[0]?.slice(0, 80))}` }
  const status = Number(m[1])
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":")
    if (colon <= 0) return { malformed: `bad header line ${JSON.stringify(line.slice(0, 80))}` }
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const rest = buf.subarray(end + 4)
  if (status >= 100 && status < 200) return parse(rest, closed, headOnly)
  if (headOnly || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) }
  if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) {
    const body = dechunk(rest)
    if (body === undefined) return closed ? { malformed: "chunked answer cut short" } : "incomplete"
    return Buffer.isBuffer(body) ? { status, headers, body } : body
  }
  const length = headers["content-length"]
  if (length !== undefined) {
    const n = Number(length)
    if (!Number.isInteger(n) || n < 0) return { malformed: `bad Content-Length ${length}` }
    if (rest.length < n) return closed ? { malformed: "answer shorter than its Content-Length" } : "incomplete"
    return { status, headers, body: rest.subarray(0, n) }
  }
  return closed ? { status, headers, body: rest } : "incomplete"
}

const filler = Buffer.alloc(64 * 1024, 0x78)

/** The bytes of `piece` framed as one chunk, or as chunks split at `splits`. */
const chunksOf = (piece: Buffer, splits: ReadonlyArray<number>): Array<Buffer> => {
  const cuts = [...new Set(splits.filter((s) => s > 0 && s < piece.length))].sort((a, b) => a - b)
  const out: Array<Buffer> = []
  let from = 0
  for (const to of [...cuts, piece.length]) {
    const part = piece.subarray(from, to)
    if (part.length > 0) out.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"))
    from = to
  }
  return out
}

/** Send `wire` to 127.0.0.1:`port` and collect what comes back, within `timeoutMillis`. */
export const exchange = (port: number, wire: Wire, timeoutMillis: number): Promise<Outcome> =>
  new Promise((resolve) => {
    const received: Array<Buffer> = []
    let size = 0
    let settled = false
    let answered = false
    const socket = connect({ port, host: "127.0.0.1", noDelay: true })
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(outcome)
    }
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMillis)
    const check = (closed: boolean) => {
      if (size === 0) return closed ? finish({ kind: "dropped", received: 0 }) : undefined
      const buf = Buffer.concat(received)
      const parsed = parse(buf, closed, wire.head_only === true)
      if (parsed === "incomplete") return
      if ("malformed" in parsed) return finish({ kind: "malformed", reason: parsed.malformed, raw: buf.subarray(0, 300).toString("latin1") })
      finish({ kind: "answer", response: parsed })
    }
    socket.on("data", (d: Buffer) => {
      answered = true
      received.push(d)
      size += d.length
      check(false)
    })
    socket.on("end", () => check(true))
    socket.on("close", () => check(true))
    // A reset after the server answered early (413 before the body was sent) is still an answer.
    socket.on("error", () => check(true))
    // A write the socket cannot take waits for drain, or for the close that means it never will.
    const write = (b: Buffer) =>
      new Promise<void>((ok) => {
        if (socket.destroyed || socket.write(b)) return ok()
        socket.once("drain", ok)
        socket.once("close", ok)
      })
    const send = async () => {
      await write(Buffer.from(wire.head, "latin1"))
      for (const piece of wire.pieces) {
        if (answered || socket.destroyed) return
        if (Buffer.isBuffer(piece)) {
          for (const b of wire.framing === "chunked" ? chunksOf(piece, wire.splits ?? []) : [piece]) await write(b)
          continue
        }
        for (let left = piece.fill; left > 0 && !answered && !socket.destroyed; left -= filler.length) {
          const part = left >= filler.length ? filler : filler.subarray(0, left)
          await write(wire.framing === "chunked" ? Buffer.concat(chunksOf(part, [])) : part)
        }
      }
      if (answered || socket.destroyed) return
      if (wire.end === "abort") {
        socket.resetAndDestroy()
        return finish({ kind: "aborted" })
      }
      if (wire.framing === "chunked" && wire.end === "wait") await write(Buffer.from("0\r\n\r\n"))
      if (wire.end === "half") socket.end()
    }
    socket.once("connect", () => void send().catch(() => check(true)))
  })
