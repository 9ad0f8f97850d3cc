/**
 * HTTP requests `fetch` cannot make: a streamed body the server may cut off mid-way.
 */
import { request } from "node:http"

/** A response as read off the wire. */
export interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/**
 * POST `head`, then filler in 64 KiB chunks (no Content-Length: chunked) up to `total` bytes
 * or until the server answers, then `tail`. Writing honours back-pressure, so a server that
 * stops reading is never sent more than its socket takes.
 */
export const sendChunked = (url: string, headers: Record<string, string>, head: Buffer, total: number, tail = Buffer.alloc(0)) =>
  new Promise<Answer>((ok, fail) => {
    const req = request(new URL(url), { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let sent = 0
    let answered = false
    req.on("response", (res) => {
      answered = true
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on("error", (e) => (answered ? undefined : fail(e)))
    req.write(head)
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
      if (!answered) req.end(tail)
    }
    pump()
  })
