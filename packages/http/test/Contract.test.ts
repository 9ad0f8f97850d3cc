/**
 * The API contract as a third party reads it, against a real server on a real port:
 * - /openapi.json passes `@apidevtools/swagger-parser` validation and `@redocly/cli lint` with
 *   the recommended rules (redocly.yaml; the exceptions justified in .redocly.lint-ignore.yaml);
 * - a client generated from the document (`openapi-typescript` types, `openapi-fetch`) runs
 *   create, get, list, discovery and error cases, on the types `@tender/client` is built on
 *   (packages/client/src/openapi.ts; packages/client/test/Package.test.ts checks they are current);
 * - so does the client Effect derives from the `TenderApi` definition (`HttpApiClient`).
 * docs/adding-an-endpoint.md, "The contract checks".
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { FetchHttpClient, HttpApiBuilder, HttpApiClient, HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { basic, promptpay, repoRoot } from "@tender/repo-test-support"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import createClient from "openapi-fetch"
import type { paths } from "../../client/src/openapi.js"
import { keys, layer } from "../../core/test/fixtures.js"
import { Api, TenderHttp } from "../src/index.js"

/** The API served by Node's http server on a free port, over the core fixtures in memory. */
const server = ManagedRuntime.make(
  HttpApiBuilder.serve().pipe(
    Layer.provide(TenderHttp.layer),
    Layer.provide(layer()),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
)
let baseUrl = ""
let document: any
beforeAll(async () => {
  const address = await server.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  assert(address._tag === "TcpAddress")
  baseUrl = `http://127.0.0.1:${address.port}`
  const res = await fetch(`${baseUrl}/openapi.json`)
  assert.strictEqual(res.status, 200)
  document = await res.json()
})
afterAll(() => server.dispose())

const authorization = basic
const createBody = promptpay

describe("the OpenAPI document against third-party validators", () => {
  it("OpenAPI /openapi.json passes @apidevtools/swagger-parser validate (every $ref resolves, the schema holds)", async () => {
    // validate() dereferences in place: hand it a copy.
    const api = await SwaggerParser.validate(structuredClone(document))
    assert.strictEqual((api as { openapi?: string }).openapi, "3.1.0")
  })

  it("OpenAPI /openapi.json passes @redocly/cli lint with the recommended rules: no error, no warning, only the justified exceptions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-redocly-"))
    try {
      // The repository's config and ignore file beside the document, whose name the ignore file keys on.
      writeFileSync(join(dir, "openapi.json"), JSON.stringify(document, null, 2))
      for (const f of ["redocly.yaml", ".redocly.lint-ignore.yaml"]) copyFileSync(join(repoRoot, f), join(dir, f))
      const bin = join(repoRoot, "node_modules", "@redocly", "cli", "bin", "cli.js")
      // Run asynchronously: a synchronous child blocks the test worker, which Vitest shares with
      // other files, and a long block starves its calls to the main process past their timeout.
      // Lint exits non-zero when it finds problems; its report is on stdout either way.
      const out = await new Promise<string>((done) => {
        execFile(process.execPath, [bin, "lint", "openapi.json", "--format", "json"], {
          cwd: dir,
          encoding: "utf8",
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
          maxBuffer: 64 * 1024 * 1024
        }, (_error, stdout) => done(stdout))
      })
      const report = JSON.parse(out) as {
        totals: { errors: number; warnings: number; ignored: number }
        problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>
      }
      const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
      assert.deepStrictEqual(problems, [])
      assert.deepStrictEqual(report.totals, { errors: 0, warnings: 0, ignored: 2 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe("a client generated from the document (openapi-typescript + openapi-fetch)", () => {
  // The base URL a client reads from the document: its first server, resolved against the
  // document's own URL (as the OpenAPI format defines a relative server URL), without the
  // trailing slash (openapi-fetch adds its own).
  const documentBase = () => new URL(document.servers[0].url, `${baseUrl}/openapi.json`).href.replace(/\/$/, "")
  const client = () => createClient<paths>({ baseUrl: documentBase(), headers: { authorization: authorization(keys.demoTest) } })

  it("OpenAPI the document's servers lead to the API it describes", () => {
    assert.strictEqual(documentBase(), baseUrl)
  })

  it("creates (201), gets and lists a payment intent, and answers discovery", async () => {
    const created = await client().POST("/payment_intents", {
      body: createBody,
      params: { header: { "Idempotency-Key": `contract-${Date.now()}` } }
    })
    assert.strictEqual(created.response.status, 201)
    const intent = created.data!
    assert.strictEqual(intent.object, "payment_intent")
    assert.strictEqual(intent.status, "requires_action")
    assert.strictEqual(intent.next_action?.type, "display_qr_code")

    const got = await client().GET("/payment_intents/{id}", { params: { path: { id: intent.id } } })
    assert.strictEqual(got.response.status, 200)
    assert.strictEqual(got.data!.id, intent.id)
    assert.isNull(got.data!.receipt)

    const list = await client().GET("/payment_intents", { params: { query: { limit: 10 } } })
    assert.strictEqual(list.response.status, 200)
    assert.include(list.data!.data.map((i) => i.id), intent.id)
    assert.isBoolean(list.data!.has_more)

    const options = await client().GET("/payment_methods/options", {
      params: { query: { amount: "150000", country: "TH", currency: "THB", checkout_mode: "merchant" } }
    })
    assert.strictEqual(options.response.status, 200)
    assert.include(options.data!.methods.map((m) => m.code), "th_promptpay")
  })

  it("D1 errors arrive as the documented error bodies: 401 invalid_api_key, 404 resource_not_found, 400 validation_failed with param", async () => {
    const wrongKey = await createClient<paths>({
      baseUrl,
      headers: { authorization: authorization({ public: keys.demoTest.public, secret: "sk_test_wrong" }) }
    })
      .GET("/payment_intents/{id}", { params: { path: { id: "dord_nothing" } } })
    assert.strictEqual(wrongKey.response.status, 401)
    assert.strictEqual(wrongKey.error?.error.code, "invalid_api_key")

    const missing = await client().GET("/payment_intents/{id}", { params: { path: { id: "dord_000000000000000000000000" } } })
    assert.strictEqual(missing.response.status, 404)
    assert.strictEqual(missing.error?.error.code, "resource_not_found")
    assert.strictEqual(missing.error?.error.request_id, missing.response.headers.get("request-id"))

    const invalid = await client().POST("/payment_intents", { body: { ...createBody, amount: "-5" } })
    assert.strictEqual(invalid.response.status, 400)
    assert.strictEqual(invalid.error?.error.code, "validation_failed")
    assert.strictEqual(invalid.error?.error.param, "amount")
  })
})

describe("the client Effect derives from the TenderApi definition (HttpApiClient)", () => {
  const makeClient = (key: { readonly public: string; readonly secret: string }) =>
    HttpApiClient.make(Api.TenderApi, {
      baseUrl,
      transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("authorization", authorization(key)))
    })
  type TenderClient = Effect.Effect.Success<ReturnType<typeof makeClient>>
  const run = <A, E>(f: (client: TenderClient) => Effect.Effect<A, E>, key: { readonly public: string; readonly secret: string } = keys.demoTest) =>
    Effect.runPromise(makeClient(key).pipe(Effect.flatMap(f), Effect.provide(FetchHttpClient.layer)))

  it("creates, gets and lists a payment intent, and answers discovery", async () => {
    const intent = await run((c) => c.paymentIntents.create({ payload: createBody, headers: { "idempotency-key": `effect-${Date.now()}` } }))
    assert.strictEqual(intent.status, "requires_action")
    const got = await run((c) => c.paymentIntents.retrieve({ path: { id: intent.id } }))
    assert.strictEqual(got.id, intent.id)
    const list = await run((c) => c.paymentIntents.list({ urlParams: { limit: "10" } }))
    assert.include(list.data.map((i) => i.id), intent.id)
    const options = await run((c) => c.paymentMethods.options({ urlParams: { amount: "150000", country: "TH", currency: "THB", checkout_mode: "merchant" } }))
    assert.include(options.methods.map((m) => m.code), "th_promptpay")
  })

  it("D1 errors decode into the declared error classes: 404 ResourceNotFound, 401 InvalidApiKey, 409 IdempotencyConflict; bad input is refused by the client itself", async () => {
    const tagAndCode = (e: unknown) => [(e as { _tag?: string })._tag, (e as { code?: string }).code]
    const unknownId = { path: { id: "dord_000000000000000000000000" } }
    const missing = await run((c) => Effect.flip(c.paymentIntents.retrieve(unknownId)))
    assert.deepStrictEqual(tagAndCode(missing), ["ResourceNotFound", "resource_not_found"])
    const wrongKey = await run((c) => Effect.flip(c.paymentIntents.retrieve(unknownId)), { public: keys.demoTest.public, secret: "sk_test_wrong" })
    assert.deepStrictEqual(tagAndCode(wrongKey), ["InvalidApiKey", "invalid_api_key"])
    // 4.9.5: the same key with a changed body.
    const headers = { "idempotency-key": `effect-conflict-${Date.now()}` }
    await run((c) => c.paymentIntents.create({ payload: createBody, headers }))
    const conflict = await run((c) => Effect.flip(c.paymentIntents.create({ payload: { ...createBody, amount: "150001" }, headers })))
    assert.deepStrictEqual(tagAndCode(conflict), ["IdempotencyConflict", "idempotency_conflict"])
    // The derived client checks its input against the same schemas before sending anything.
    const invalid = await run((c) => Effect.flip(c.paymentMethods.options({ urlParams: { amount: "-1", country: "TH", currency: "THB" } })))
    assert.strictEqual((invalid as { _tag?: string })._tag, "ParseError")
  })
})
