/**
 * Writes `src/standin/openapi-extract.json`: the Checkout API v72 operations of Adyen's
 * published OpenAPI description that `@tender/adyen` calls, every component schema they
 * reference (transitively), the description's own examples of their answers, and the standard
 * notification's schema from Adyen's Webhooks description. The stand-in checks every request
 * (and every notification it sends) against it, so the file is generated, never edited.
 *
 *   tsx packages/adyen/scripts/adyen-extract.ts <CheckoutService-v72.json> <Webhooks-v1.json>
 *
 * The inputs are read from the public repository Adyen/adyen-openapi with git (see SOURCE):
 *   git show aa014f0cbdb58ff5c44a2ff9d5fe734642210aff:json/CheckoutService-v72.json
 *   git show aa014f0cbdb58ff5c44a2ff9d5fe734642210aff:json/Webhooks-v1.json
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { closure, type Json, refsIn, strip } from "../../testing/scripts/extract.js"

/** Where the inputs come from; recorded in the extract. */
const SOURCE = {
  repository: "github.com/Adyen/adyen-openapi",
  commit: "aa014f0cbdb58ff5c44a2ff9d5fe734642210aff",
  date: "2026-07-01T17:21:31+02:00",
  checkout: "json/CheckoutService-v72.json",
  webhooks: "json/Webhooks-v1.json"
}

/** The operations the adapter uses: path → methods. */
const OPERATIONS: Record<string, ReadonlyArray<"post">> = {
  "/payments": ["post"],
  "/payments/{paymentPspReference}/cancels": ["post"],
  "/payments/{paymentPspReference}/refunds": ["post"]
}

/** The event codes the stand-in sends; each is checked against its own webhook's schema (Webhooks-v1). */
const NOTIFICATION_EVENTS = ["AUTHORISATION", "CANCELLATION", "REFUND", "REFUND_FAILED", "CAPTURE"]

// Descriptions and version notes make up most of the file and say nothing a validator reads.
const PROSE = ["description", "summary", "x-addedInVersion", "x-deprecatedInVersion", "x-deprecatedMessage"]

const main = () => {
  const [checkoutPath, webhooksPath] = process.argv.slice(2)
  if (checkoutPath === undefined || webhooksPath === undefined) {
    throw new Error("usage: tsx adyen-extract.ts <CheckoutService-v72.json> <Webhooks-v1.json>")
  }
  const checkout = JSON.parse(readFileSync(checkoutPath, "utf8")) as any
  const webhooks = JSON.parse(readFileSync(webhooksPath, "utf8")) as any
  // The server's version path (`/v72`) is part of every address the SDK calls.
  const prefix = new URL(checkout.servers[0].url).pathname.replace(/\/$/, "")
  const paths: Record<string, Record<string, Json>> = {}
  // The description's examples of each operation's answers, by operation id and status.
  const examples: Record<string, Record<string, Record<string, Json>>> = {}
  for (const [path, methods] of Object.entries(OPERATIONS)) {
    const item = checkout.paths[path]
    if (item === undefined) throw new Error(`${path} is not in the description`)
    paths[prefix + path] = {}
    for (const method of methods) {
      const op = item[method]
      if (op === undefined) throw new Error(`${method} ${path} is not in the description`)
      // Parameters are references to components/parameters: inlined, so the stand-in reads them as they are.
      const parameters = (op.parameters ?? []).map((p: any) =>
        p.$ref === undefined ? p : checkout.components.parameters[p.$ref.replace("#/components/parameters/", "")]
      )
      const responses: Record<string, Json> = {}
      const answered: Record<string, Record<string, Json>> = {}
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const content = response.content?.["application/json"]
        responses[status] = content === undefined ? {} : { content: { "application/json": { schema: content.schema } } }
        answered[status] = Object.fromEntries(
          Object.entries<any>(content?.examples ?? {}).map(([name, ex]) => {
            const value = ex.$ref === undefined ? ex.value : checkout.components.examples[ex.$ref.replace("#/components/examples/", "")].value
            return [name, value as Json]
          })
        )
      }
      examples[op.operationId] = answered
      paths[prefix + path]![method] = strip({
        operationId: op.operationId,
        parameters,
        requestBody: { content: { "application/json": { schema: op.requestBody.content["application/json"].schema } } },
        responses
      }, PROSE)
    }
  }
  const wanted = new Set<string>()
  refsIn(paths, wanted)
  const schemas = closure(wanted, checkout.components.schemas, PROSE)
  // Two descriptions, one namespace: the notification's schemas are kept under `Webhooks_<name>`.
  const renamed = (value: Json): Json => JSON.parse(JSON.stringify(value).replaceAll("\"#/components/schemas/", "\"#/components/schemas/Webhooks_"))
  const notifications: Record<string, string> = {}
  for (const event of NOTIFICATION_EVENTS) {
    const ref = webhooks.webhooks[`/${event}`]?.post?.requestBody?.content?.["application/json"]?.schema?.$ref
    if (typeof ref !== "string") throw new Error(`the webhooks description has no ${event}`)
    const name = ref.replace("#/components/schemas/", "")
    notifications[event] = `Webhooks_${name}`
    for (const [n, schema] of Object.entries(closure([name], webhooks.components.schemas, PROSE))) schemas[`Webhooks_${n}`] = renamed(schema)
  }
  const sortedSchemas = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]!]))
  const extract = {
    source: SOURCE,
    apiVersion: `v${checkout.info.version}`,
    webhooksVersion: `v${webhooks.info.version}`,
    generatedBy: "packages/adyen/scripts/adyen-extract.ts",
    paths,
    components: { schemas: sortedSchemas },
    notifications,
    examples
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), "../src/standin/openapi-extract.json")
  writeFileSync(out, JSON.stringify(extract) + "\n")
  console.log(`wrote ${out}: ${Object.keys(paths).length} paths, ${Object.keys(sortedSchemas).length} schemas`)
}

main()
