/**
 * The demo server: @tender/http on the embedded in-memory store, loaded from a seed file.
 *
 *   npm start                      # PORT=3000, TENDER_SEED=examples/server/seed.json
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Tender } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { loadSeed, options } from "./config.js"

const main = Effect.gen(function*() {
  const { port, publicUrl, checkoutSecret, seedPath } = options()
  const seed = yield* loadSeed(seedPath)
  const services = Tender.layerMemory({ seed, hostedCheckout: { baseUrl: publicUrl, secret: checkoutSecret } })
  const server = HttpApiBuilder.serve().pipe(
    Layer.provide(TenderHttp.layer),
    Layer.provide(services),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
  const demo = seed.merchants[0]?.api_keys.find((k) => k.public_key.startsWith("pk_test_"))
  // The banner is built after the server layer, so it prints only once the port is listening.
  yield* Layer.launch(Layer.effectDiscard(Effect.sync(() => banner(publicUrl, seedPath, demo))).pipe(Layer.provide(server)))
})

const banner = (url: string, seedPath: string, key: { public_key: string; secret_key: string } | undefined) => {
  const lines = [
    `Tender demo server listening on ${url} (in-memory store, seed ${seedPath})`,
    `OpenAPI document: ${url}/openapi.json`
  ]
  if (key !== undefined) {
    lines.push(
      "Create a first payment intent:",
      `  curl -s -u ${key.public_key}:${key.secret_key} -H 'Content-Type: application/json' \\`,
      `    -H "Idempotency-Key: $(uuidgen 2>/dev/null || date +%s%N)" \\`,
      `    -d '{"amount":"150000","currency":"THB","country":"TH","checkout_mode":"merchant","payment_method":"th_promptpay","customer":{"name":"Somchai Jaidee","email":"somchai@example.com"}}' \\`,
      `    ${url}/payment_intents`
    )
  }
  process.stdout.write(lines.join("\n") + "\n")
}

NodeRuntime.runMain(
  main.pipe(
    Effect.catchTag("InvalidSeed", (e) =>
      Effect.sync(() => {
        process.stderr.write(`tender: the seed file does not hold together (InvalidSeed): ${e.message}\n`)
        process.exitCode = 1
      }))
  )
)
