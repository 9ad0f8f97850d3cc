/**
 * Every HTTP method Node's parser accepts, sent over a real socket to a set of paths of a mounted
 * Tender: whatever the method, the answer is a proper one (never a 5xx, never a dropped
 * connection), and on Tender's API paths a 4xx is the D1 body with its Request-Id. Shared by the
 * mounts of @tender/http (AllMethods.test.ts) and @tender/server's handler. Not a test file itself.
 */
import { assert } from "@effect/vitest"
import { METHODS, request } from "node:http"

/** Paths of every kind: a list, an id, an action, a hosted page, the document, health, unknown. */
export const paths = [
  "/payment_intents",
  "/payment_intents/dord_AAAAAAAAAAAAAAAAAAAAAAAA",
  "/payment_intents/dord_AAAAAAAAAAAAAAAAAAAAAAAA/confirm",
  "/assets",
  "/provider_notifications/simulator",
  "/checkout/dord_AAAAAAAAAAAAAAAAAAAAAAAA",
  "/openapi.json",
  "/healthz",
  "/not_a_route"
]

/** Every method but CONNECT, a proxy tunnel no `request` listener ever sees (`ClientErrors.install` answers it). */
export const methods = METHODS.filter((m) => m !== "CONNECT")

const send = (origin: string, method: string, path: string) =>
  new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((ok, fail) => {
    const req = request(`${origin}${path}`, { method, agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (d) => (text += d))
      res.on("end", () => ok({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on("error", (error) => fail(new Error(`${method} ${path}: ${error.message}`)))
    req.end()
  })

/** Every method on every path at `origin` (Tender at `prefix`): answered, never a 5xx; a 4xx of Tender's in the D1 shape. */
export const everyMethodAnswered = async (origin: string, prefix = "", owned: (path: string) => boolean = (p) => p !== "/not_a_route") => {
  const statuses = new Map<number, number>()
  for (const method of methods) {
    for (const path of paths) {
      const res = await send(origin, method, prefix + path)
      const label = `${method} ${prefix}${path} -> ${res.status} ${res.text.slice(0, 200)}`
      assert.isAtLeast(res.status, 200, label)
      assert.isBelow(res.status, 500, label)
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      // The hosted pages answer their refusals as HTML pages for the payer; the API as D1 JSON.
      if (res.status >= 400 && method !== "HEAD" && owned(path) && !path.startsWith("/checkout/")) {
        const body = JSON.parse(res.text) as { error: { code: string; request_id: string } }
        assert.strictEqual(body.error.request_id, res.headers["request-id"], label)
        if (res.status === 405) assert.isString(res.headers["allow"], label)
      }
    }
  }
  // The refusals were met, not only successes.
  assert.isTrue(statuses.has(405), JSON.stringify([...statuses]))
  return statuses
}
