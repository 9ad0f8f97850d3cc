/**
 * One merchant's bad day, as issue 44 tells it: 9 webhook endpoints on a `receiver` (4 that never
 * answer, 1 that answers after 2.5 s, 4 at once), 300 payment intents and 40 resends. Stood up
 * through the API by the backlog test (packages/http/test/backlogIsolationSuite.ts) and by
 * `npm run bench` (bench/http/backlog.ts), so both measure the same backlog.
 */
import type { Key } from "./requests.js"
import { promptpayFor } from "./requests.js"

/** A call of the API as `key` that answered 2xx: its JSON body. */
export type CallOk = (method: string, path: string, body: unknown, key: Key) => Promise<any>

/** The paths of the merchant's endpoints on the receiver: 4 hang, 1 is slow, 4 answer at once. */
export const backlogPaths = ["/hang/1", "/hang/2", "/hang/3", "/hang/4", "/slow/1", "/fast/1", "/fast/2", "/fast/3", "/fast/4"] as const

/** Stand the backlog up as `key`'s merchant: its endpoints at `url(path)`, 300 intents (20 at a time), 40 resends of everything. */
export const standBacklog = async (ok: CallOk, key: Key, url: (path: string) => string): Promise<void> => {
  const endpoints: Array<{ id: string }> = []
  for (const path of backlogPaths) endpoints.push(await ok("POST", "/webhook_endpoints", { url: url(path) }, key))
  const since = new Date(Date.now() - 60_000).toISOString()
  for (let i = 0; i < 300; i += 20) {
    await Promise.all(Array.from({ length: 20 }, () => ok("POST", "/payment_intents", promptpayFor("150000"), key)))
  }
  for (let i = 0; i < 40; i++) await ok("POST", `/webhook_endpoints/${endpoints[i % endpoints.length]!.id}/resend`, { since }, key)
}
