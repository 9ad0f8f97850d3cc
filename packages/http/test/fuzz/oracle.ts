/**
 * What every answer of the crash fuzzer must be (D1): a well-formed HTTP response
 * whose status is below 500, or the documented 503 `service_unavailable` (docs/reliability.md,
 * "Database outage"); every 4xx/5xx the D1 JSON body `{error:{code,message,param?,details?,
 * request_id}}` with its `Request-Id` header equal, whoever answered (Tender, or Node through
 * `ClientErrors`). The one exception: a hosted checkout page, made for a browser, answers its
 * 4xx as an HTML page (docs/hosted-checkout.md). No answer at all is a failure unless the
 * request was one the fuzzer aborted or whose HTTP framing was broken (`Wire.mayDrop`).
 */
import type { Outcome, Wire } from "./wire.js"

const requestId = /^req_[0-9A-Za-z]{24}$/
const errorKeys = new Set(["code", "message", "param", "details", "request_id"])

/** Why the D1 body of `response` is not one, or undefined when it is. */
const notD1 = (headers: Record<string, string>, body: Buffer): string | undefined => {
  if (headers["content-type"] !== "application/json") return `Content-Type ${headers["content-type"] ?? "(none)"}, not application/json`
  let json: any
  try {
    json = JSON.parse(body.toString("utf8"))
  } catch {
    return "body is not JSON"
  }
  if (typeof json !== "object" || json === null || Object.keys(json).join() !== "error") return "body is not {error}"
  const error = json.error
  if (typeof error !== "object" || error === null) return "error is not an object"
  if (typeof error.code !== "string" || error.code === "") return "no error.code"
  if (typeof error.message !== "string" || error.message === "") return "no error.message"
  if (typeof error.request_id !== "string" || !requestId.test(error.request_id)) return "no error.request_id"
  if (headers["request-id"] !== error.request_id) return `Request-Id ${headers["request-id"]} differs from error.request_id`
  const extra = Object.keys(error).find((k) => !errorKeys.has(k))
  if (extra !== undefined) return `unexpected error.${extra}`
  return undefined
}

/** The kind of failure, or undefined when `outcome` is an acceptable answer to `wire`. */
export type Failure = { readonly kind: "5xx" | "not D1" | "dropped" | "hang" | "malformed"; readonly detail: string }

export const judge = (wire: Wire, outcome: Outcome): Failure | undefined => {
  switch (outcome.kind) {
    case "aborted":
      return undefined
    case "timeout":
      return { kind: "hang", detail: "no answer within the time limit" }
    case "malformed":
      return { kind: "malformed", detail: `${outcome.reason}: ${JSON.stringify(outcome.raw)}` }
    case "dropped":
      return wire.mayDrop ? undefined : { kind: "dropped", detail: `connection closed after ${outcome.received} bytes, no answer` }
    case "answer": {
      const { status, headers, body } = outcome.response
      const text = body.subarray(0, 300).toString("utf8")
      if (status >= 500) {
        const documented = status === 503 && notD1(headers, body) === undefined && text.includes("\"service_unavailable\"")
        if (!documented) return { kind: "5xx", detail: `${status} ${text}` }
      }
      if (status < 400 || wire.head_only === true) return undefined
      if (wire.hosted === true && (headers["content-type"] ?? "").startsWith("text/html")) return undefined
      const why = notD1(headers, body)
      return why === undefined ? undefined : { kind: "not D1", detail: `${status} ${why}: ${text}` }
    }
  }
}
