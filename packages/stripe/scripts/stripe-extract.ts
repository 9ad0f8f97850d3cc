/**
 * Writes `src/standin/openapi-extract.json`: the operations of Stripe's published
 * OpenAPI description that `@tender/stripe` calls, every component schema they reference
 * (transitively), and the published fixtures of the objects they answer with. The stand-in
 * checks every request against it, so the file is generated from the description, never edited.
 *
 *   tsx packages/stripe/scripts/stripe-extract.ts <spec3.yaml> <fixtures3.json>
 *
 * The inputs are read from the public repository stripe/openapi with git (see SOURCE below):
 *   git show 63a674638635c68de26b9f3add13e58198f4df44:openapi/spec3.yaml
 *   git show HEAD:openapi/fixtures3.json
 */
import { load } from "js-yaml"
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { closure, type Json, refsIn, strip } from "../../testing/scripts/extract.js"

/** Where the inputs come from; recorded in the extract. */
const SOURCE = {
  repository: "github.com/stripe/openapi",
  spec: {
    commit: "63a674638635c68de26b9f3add13e58198f4df44",
    file: "openapi/spec3.yaml",
    date: "2023-09-12T18:59:47Z"
  },
  fixtures: {
    commit: "f6c2a48fbac2819d1feba8143d942ffc65e1c0d2",
    file: "openapi/fixtures3.json",
    date: "2026-08-21T22:28:48Z"
  }
}

/** The operations the adapter uses: path → methods. */
const OPERATIONS: Record<string, ReadonlyArray<"get" | "post">> = {
  "/v1/payment_intents": ["get", "post"],
  "/v1/payment_intents/{intent}": ["get", "post"],
  "/v1/payment_intents/{intent}/cancel": ["post"],
  "/v1/refunds": ["get", "post"],
  "/v1/refunds/{refund}": ["get"],
  "/v1/checkout/sessions": ["get", "post"],
  "/v1/checkout/sessions/{session}": ["get"],
  "/v1/checkout/sessions/{session}/expire": ["post"],
  "/v1/events/{id}": ["get"]
}

/** The fixtures (resources of fixtures3.json) the stand-in shapes its answers on. */
const FIXTURES = ["payment_intent", "refund", "checkout.session", "charge", "event"]

const main = () => {
  const [specPath, fixturesPath] = process.argv.slice(2)
  if (specPath === undefined || fixturesPath === undefined) {
    throw new Error("usage: tsx stripe-extract.ts <spec3.yaml> <fixtures3.json>")
  }
  const spec = load(readFileSync(specPath, "utf8")) as any
  const fixtures = JSON.parse(readFileSync(fixturesPath, "utf8")) as any
  const paths: Record<string, Record<string, Json>> = {}
  for (const [path, methods] of Object.entries(OPERATIONS)) {
    const item = spec.paths[path]
    if (item === undefined) throw new Error(`${path} is not in the description`)
    paths[path] = {}
    for (const method of methods) {
      if (item[method] === undefined) throw new Error(`${method} ${path} is not in the description`)
      paths[path]![method] = strip(item[method])
    }
  }
  const wanted = new Set<string>()
  refsIn(paths, wanted)
  const schemas = closure(wanted, spec.components.schemas)
  const sortedSchemas = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]!]))
  const fixtureOut = Object.fromEntries(FIXTURES.map((name) => {
    const f = fixtures.resources[name]
    if (f === undefined) throw new Error(`fixture ${name} is not in fixtures3.json`)
    return [name, f]
  }))
  const extract = {
    source: SOURCE,
    apiVersion: spec.info.version,
    generatedBy: "packages/stripe/scripts/stripe-extract.ts",
    paths,
    components: { schemas: sortedSchemas },
    fixtures: fixtureOut
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), "../src/standin/openapi-extract.json")
  writeFileSync(out, JSON.stringify(extract) + "\n")
  console.log(`wrote ${out}: ${Object.keys(paths).length} paths, ${Object.keys(schemas).length} schemas`)
}

main()
