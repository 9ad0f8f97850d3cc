/**
 * The route table's shortcuts (docs/performance.md, "A route resolved once per
 * request"): the candidate index and the plain-path shortcut of `pathOf` must answer exactly
 * what the linear scan over every route's pattern and the URL parser answer, for any path.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as Routes from "../src/internal/routes.js"

/** Segments near the real ones: route words, ids, empties, dots, escapes and object members. */
const segment = fc.oneof(
  fc.constantFrom(
    "payment_intents",
    "refunds",
    "webhook_endpoints",
    "checkout",
    "events",
    "simulator",
    "online_banking",
    "payment_methods",
    "options",
    "openapi.json",
    "assets",
    "payments",
    "pi_123",
    ":id",
    "",
    ".",
    "..",
    "%2e",
    "%zz",
    "__proto__",
    "constructor",
    "a b",
    "é",
    "x?y=1",
    "x#f",
    "\\"
  ),
  fc.string({ unit: fc.constantFrom("a", "_", "-", "~", ".", "%", "/", "?", "#", ":", "\\", " ", "é", "2", "e") })
)
const url = fc.tuple(fc.array(segment, { maxLength: 5 }), fc.constantFrom("", "/", "?a=1", "?", "#x", "/?a=b&c"))
  .map(([segments, tail]) => `/${segments.join("/")}${tail}`)

const viaParser = (u: string) => {
  try {
    return new URL(u, "http://localhost").pathname
  } catch {
    return u
  }
}

describe("route table", () => {
  it("pathOf answers what the URL parser answers, for any request target", () => {
    fc.assert(fc.property(fc.oneof(url, fc.string()), (u) => assert.strictEqual(Routes.pathOf(u), viaParser(u), u)), { numRuns: 5000 })
  })

  for (const prefix of ["", "/payments", "/a/b"]) {
    it(`find, owns and methodsOf through the candidate index equal the scan of every route (prefix "${prefix}")`, () => {
      const t = Routes.table(prefix)
      const methods = ["GET", "POST", "DELETE", "PATCH", "PUT"]
      const check = (path: string) => {
        assert.strictEqual(Routes.owns(t, path), t.routes.some((r) => r.pattern.test(path)), path)
        assert.deepStrictEqual(Routes.methodsOf(t, path), [...new Set(t.routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort(), path)
        for (const method of methods) {
          assert.strictEqual(
            Routes.find(t, method, path),
            t.routes.find((r) => r.method === method && r.pattern.test(path)),
            `${method} ${path}`
          )
        }
      }
      // Every route's own path, with each parameter as an id: the index must find them all.
      for (const route of t.routes) {
        const path = route.path.replace(/:[A-Za-z0-9_]+\??/g, "x_1")
        check(path)
        assert.strictEqual(Routes.find(t, route.method, path)?.path, route.path, path)
      }
      fc.assert(fc.property(url, (u) => check(prefix + Routes.pathOf(u))), { numRuns: 3000 })
    })
  }

  it("each route's template, made once, names its parameters in braces under the prefix", () => {
    const t = Routes.table("/payments")
    assert.strictEqual(Routes.find(t, "GET", "/payments/payment_intents/pi_1")?.template, "/payments/payment_intents/{id}")
    for (const route of t.routes) assert.notInclude(route.template, ":", route.path)
  })
})
