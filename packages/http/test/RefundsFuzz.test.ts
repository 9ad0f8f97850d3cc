/**
 * Property-based fuzzing of the D10 routes through the real fetch handler (D1): generated
 * refund bodies, cancel bodies and GET /refunds query strings. Whatever arrives, the answer is
 * never a 5xx, every 4xx is the D1 body, and the refunds of a payment never pass its amount
 * (D10). About 2,300 generated requests per run (the sum of `numRuns` below).
 */
import { assert, describe, it } from "@effect/vitest"
import { jsonHeaders } from "@tender/repo-test-support"
import fc from "fast-check"
import { world } from "./d10World.js"
import { mutate, mutationsOf, query, weirdValue } from "./fuzz/generators.js"
import type { Reply } from "./harness.js"
import { assertError } from "./harness.js"

/** Never a 5xx; a 4xx is the D1 body. */
const check = (res: Reply, label: string) => {
  assert.isBelow(res.status, 500, `${label} -> ${res.status} ${res.text.slice(0, 300)}`)
  if (res.status >= 400) assertError(res, res.status, res.json?.error?.code)
}

const refundPaths = [
  "payment_intent",
  "amount",
  "reason",
  "merchant_reference",
  "metadata",
  "metadata.k",
  "destination",
  "destination.type",
  "destination.bank",
  "destination.account_number",
  "destination.account_name",
  "note",
  "__proto__",
  "constructor"
]

const slow = { timeout: 120_000 }

describe("D10 fuzzing the cancel and refund routes through the real fetch handler (D1)", () => {
  it("D10 D1 POST /refunds with fields mutated: never a 5xx, and the refunds of a payment never pass its amount", slow, async () => {
    const w = await world()
    const pi = await w.paid("100000")
    const base = { payment_intent: pi.id, amount: "700", reason: "duplicate", metadata: { order: "1" } }
    await fc.assert(
      fc.asyncProperty(mutationsOf(refundPaths), async (changes) => {
        const body = changes.reduce<unknown>((b, c) => mutate(b, c.path, c.value, c.remove), base)
        const raw = JSON.stringify(body)
        check(await w.req("POST", "/refunds", { raw, headers: jsonHeaders }), `POST /refunds ${raw.slice(0, 200)}`)
      }),
      { numRuns: 1000 }
    )
    await w.work()
    let total = 0n
    let cursor: string | null = null
    do {
      const page: Reply = await w.req("GET", `/refunds?payment_intent=${pi.id}&limit=100${cursor === null ? "" : `&cursor=${cursor}`}`)
      for (const r of page.json.data) if (r.status !== "failed") total += BigInt(r.amount)
      cursor = page.json.next_cursor
    } while (cursor !== null)
    assert.isTrue(total <= 100000n, `${total} refunded of 100000`)
    assert.strictEqual((await w.req("GET", `/payment_intents/${pi.id}`)).json.amount_refunded, total.toString())
  })

  it("D10 D1 POST /payment_intents/{id}/cancel with any JSON body: never a 5xx; only a valid body cancels", slow, async () => {
    const w = await world()
    await fc.assert(
      fc.asyncProperty(fc.oneof(weirdValue, fc.dictionary(fc.constantFrom("cancellation_reason", "reason", "x"), weirdValue)), async (body) => {
        const pi = await w.intent()
        const raw = JSON.stringify(body) ?? ""
        const res = await w.req("POST", `/payment_intents/${pi.id}/cancel`, { raw, headers: jsonHeaders })
        check(res, `cancel ${raw.slice(0, 200)}`)
        const status = (await w.req("GET", `/payment_intents/${pi.id}`)).json.status
        assert.strictEqual(status, res.status === 200 ? "canceled" : "requires_action", raw)
      }),
      { numRuns: 300 }
    )
  })

  it("D10 D1 query strings of GET /refunds: never a 5xx, every 4xx in the D1 shape", slow, async () => {
    const w = await world()
    const pi = await w.paid()
    await w.refund({ payment_intent: pi.id, amount: "100" })
    const names = ["limit", "cursor", "status", "payment_intent", "merchant_reference", "created_after", "created_before", "amount"]
    await fc.assert(
      fc.asyncProperty(
        query(names, [["limit", "2"], ["status", "pending,failed"], ["payment_intent", pi.id], ["created_after", "2020-01-01T00%3A00%3A00Z"]]),
        async (q) => {
          let ok = true
          try {
            new URL(`http://localhost/refunds${q}`)
          } catch {
            ok = false
          }
          fc.pre(ok)
          check(await w.req("GET", `/refunds${q}`), `GET /refunds${q.slice(0, 200)}`)
        }
      ),
      { numRuns: 1000 }
    )
  })
})
