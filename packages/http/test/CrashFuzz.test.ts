/**
 * The standing crash fuzzer, short run (D1; docs/reliability.md "Hostile inputs
 * tried"): Tender in a child process on a real `node:http` server, generated requests over raw
 * sockets at every route of the API (`fuzz/`). The long run is `npm run fuzz`.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { health, problems } from "./fuzz/check.js"
import { run, setup, startTarget, type Target } from "./fuzz/engine.js"
import { routes } from "./fuzz/requests.js"

let target: Target

beforeAll(async () => {
  target = await startTarget()
}, 120_000)
afterAll(() => target.stop())

const total = 1_000

describe("crash fuzzer over real sockets (D1)", () => {
  it("D1 1,000 hostile requests at every route: the process stays up, never a 5xx, every 4xx in the D1 shape, no unexplained drop, memory given back", {
    timeout: 300_000
  }, async () => {
    const known = await setup(target.port)
    const before = await target.memory()
    const seed = Date.now() % 1_000_000_000
    const tally = await run(target, known, { total, concurrency: 24, seed })
    const h = await health(target, before, tally)
    const found = problems(tally, h)
    assert.deepStrictEqual(found, [], `seed ${seed} (repeat: npm run fuzz -- --requests ${total} --seed ${seed})`)
    assert.isTrue(h.alive)
    assert.strictEqual(h.createStatus, 201)
    assert.strictEqual(tally.requests, total)
    // Every kind of attack was sent, not only the common ones.
    for (
      const category of [
        "JSON, Content-Length",
        "JSON, chunked",
        "multipart, random parts",
        "truncated body (half-close)",
        "aborted mid-body (reset)",
        "bad chunk framing",
        "odd request line or headers",
        "huge headers or URL",
        "bad encodings and charsets"
      ]
    ) {
      assert.isAbove(tally.byCategory.get(category)?.count ?? 0, 0, category)
    }
  })

  it("the fuzzed routes are the API definition's: every endpoint, hosted checkout included", () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`))
    for (const expected of ["POST /payment_intents", "POST /assets", "POST /topup_intents/:id/receipt", "DELETE /webhook_endpoints/:id", "GET /checkout/:id"]) {
      assert.isTrue(paths.has(expected), expected)
    }
    assert.isAtLeast(routes.length, 28)
  })
})
