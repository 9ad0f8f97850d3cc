/**
 * What @tender/client is made of: its types are the ones today's OpenAPI document generates
 * (`npm run openapi:types`), and it needs no Effect in the host (its sources import only
 * `openapi-fetch`, Node built-ins and each other; its manifest names nothing else).
 */
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { generateTypes, typesPath } from "../../http/test/client/generate.js"
import type { ErrorCode, Refund, TenderEvent } from "../src/index.js"
import { tender } from "./servers.js"

const root = resolve(import.meta.dirname, "..")

/** Every `.ts` file under `dir`. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [])

describe("@tender/client package", () => {
  it("client: the committed src/openapi.ts is what the served /openapi.json generates (npm run openapi:types)", async () => {
    const served: unknown = await fetch(`${(await tender()).url}/openapi.json`).then((r) => r.json())
    assert.strictEqual(readFileSync(typesPath, "utf8"), await generateTypes(served), "packages/client/src/openapi.ts is stale: run `npm run openapi:types`")
  }, 30_000)

  it("client: works with no effect in the host: sources import only openapi-fetch, node: built-ins and each other; one runtime dependency, no peers", () => {
    const imported = sources(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']/g)].map((m) => m[1]!)
    )
    assert.isNotEmpty(imported)
    assert.deepStrictEqual(imported.filter((s) => !s.startsWith(".") && !s.startsWith("node:") && s !== "openapi-fetch"), [])
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>
    assert.deepStrictEqual(manifest["dependencies"], { "openapi-fetch": "0.17.0" })
    assert.notProperty(manifest, "peerDependencies")
  })

  it("client: the types are the document's: ErrorCode is the union of D1 codes (not string), TenderEvent narrows data.object by type (checked by npm run typecheck)", () => {
    expectTypeOf<"resource_not_found">().toMatchTypeOf<ErrorCode>()
    expectTypeOf<"amount_exceeds_refundable">().toMatchTypeOf<ErrorCode>()
    expectTypeOf<"no_such_code">().not.toMatchTypeOf<ErrorCode>()
    expectTypeOf<Extract<TenderEvent, { type: "refund.failed" }>["data"]["object"]>().toEqualTypeOf<Refund>()
  })
})
