/**
 * The OpenAPI document served at /openapi.json is generated from the HttpApi definition:
 * it must be self-contained and carry the security the definition's middleware declares.
 */
import { HttpApi, HttpApiMiddleware } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Errors } from "@tender/core"
import { Effect, Schema } from "effect"
import { Api } from "../src/index.js"
import { CurrentSeen } from "../src/internal/current.js"
import { errorSchema } from "../src/internal/errorSchema.js"
import { app, call } from "./harness.js"

const served = async () => {
  const res = await call(app(), "GET", "/openapi.json")
  assert.strictEqual(res.status, 200, res.text)
  return res.json
}

/** Every `$ref` in `value`, with where it was found. */
const refsIn = (value: unknown, at: string, out: Array<[string, string]> = []): Array<[string, string]> => {
  if (Array.isArray(value)) value.forEach((v, i) => refsIn(v, `${at}/${i}`, out))
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push([at, v])
      else refsIn(v, `${at}/${k}`, out)
    }
  }
  return out
}

/** Resolve a local JSON pointer (`#/a/b`) inside `doc`. */
const resolve = (doc: any, ref: string): unknown =>
  ref.slice(2).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((node: any, key) => (node === undefined || node === null ? undefined : node[key]), doc)

describe("the generated OpenAPI document", () => {
  it("OpenAPI every $ref resolves inside the document", async () => {
    const doc = await served()
    const refs = refsIn(doc, "#")
    assert.isAbove(refs.length, 10)
    for (const [at, ref] of refs) {
      assert.isTrue(ref.startsWith("#/"), `${at}: ${ref} points outside the document`)
      assert.isDefined(resolve(doc, ref), `${at}: ${ref} does not resolve`)
    }
  })

  it("OpenAPI every component schema is defined before a schema that uses it (generators emitting one const per schema, orval, read them in order)", async () => {
    const doc = await served()
    const names = Object.keys(doc.components.schemas)
    const order = new Map(names.map((n, i) => [n, i]))
    const late: Array<string> = []
    for (const [i, name] of names.entries()) {
      for (const [, ref] of refsIn(doc.components.schemas[name], "#")) {
        const used = ref.replace("#/components/schemas/", "")
        if (used !== name && (order.get(used) ?? -1) > i) late.push(`${name} uses ${used}, defined after it`)
      }
    }
    assert.deepStrictEqual(late, [])
    // Not a vacuous order: schemas do refer to one another.
    assert.isAbove(names.filter((n) => refsIn(doc.components.schemas[n], "#").length > 0).length, 5)
  })

  it("OpenAPI no two schemas share a $id: a JSON Schema validator (ajv) refuses to compile such a document", async () => {
    const doc = await served()
    const ids: Array<string> = []
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk)
      else if (typeof node === "object" && node !== null) {
        const id = (node as Record<string, unknown>)["$id"]
        if (typeof id === "string") ids.push(id)
        Object.values(node).forEach(walk)
      }
    }
    walk(doc)
    assert.deepStrictEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [])
  })

  it("D3 confirm takes {} or no body: the document declares an optional empty object (and so for the other actions without a payload)", async () => {
    const doc = await served()
    for (const path of ["/payment_intents/{id}/confirm", "/payout_intents/{id}/cancel", "/webhook_endpoints/{id}/enable"]) {
      const body = doc.paths[path].post.requestBody
      assert.strictEqual(body?.required, false, path)
      assert.deepStrictEqual(body.content["application/json"].schema, { type: "object", properties: {}, additionalProperties: false }, path)
    }
    assert.strictEqual(doc.paths["/webhook_endpoints/{id}/resend"].post.requestBody.required, true)
  })

  it("D1 every response of every operation declares the Request-Id header", async () => {
    const doc = await served()
    let responses = 0
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          responses++
          const header = response.headers?.["Request-Id"]
          assert.isDefined(header, `${method} ${path} ${status}`)
          assert.strictEqual(header.schema.pattern, "^req_[0-9A-Za-z]{24}$")
        }
      }
    }
    assert.isAbove(responses, 40)
  })

  it("5 OpenAPI the Basic security scheme and each operation's security are generated; the catalogue and /openapi.json need none", async () => {
    const doc = await served()
    assert.deepStrictEqual(doc.components.securitySchemes, {
      basicAuth: { type: "http", scheme: "basic", description: "The public key as user name, the secret key as password (5)." }
    })
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, any>).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const)
    )
    assert.sameMembers(operations.map(([name]) => name), [
      "POST /payment_intents",
      "GET /payment_intents",
      "GET /payment_intents/{id}",
      "POST /payment_intents/{id}/confirm",
      "POST /payment_intents/{id}/receipt",
      "POST /payment_intents/{id}/cancel",
      "POST /refunds",
      "GET /refunds",
      "GET /refunds/{id}",
      "POST /assets",
      "POST /payout_intents",
      "GET /payout_intents",
      "GET /payout_intents/{id}",
      "POST /payout_intents/{id}/cancel",
      "POST /topup_intents",
      "GET /topup_intents",
      "GET /topup_intents/{id}",
      "POST /topup_intents/{id}/receipt",
      "POST /webhook_endpoints",
      "GET /webhook_endpoints",
      "GET /webhook_endpoints/{id}",
      "DELETE /webhook_endpoints/{id}",
      "GET /webhook_endpoints/{id}/attempts",
      "POST /webhook_endpoints/{id}/resend",
      "POST /webhook_endpoints/{id}/rotate_secret",
      "POST /webhook_endpoints/{id}/enable",
      "GET /events",
      "GET /events/{id}",
      "GET /balance",
      "GET /balance_transactions",
      "GET /balance_transactions/{id}",
      "GET /payment_methods/options",
      "GET /webhook_event_types"
    ])
    for (const [name, op] of operations) {
      if (name === "GET /webhook_event_types") {
        assert.deepStrictEqual(op.security, [], name)
        assert.notProperty(op.responses, "401", name)
      } else {
        assert.deepStrictEqual(op.security, [{ basicAuth: [] }], name)
        assert.sameMembers(op.responses["401"].content["application/json"].schema.anyOf.map((s: { $ref: string }) => s.$ref), [
          "#/components/schemas/AuthenticationRequired",
          "#/components/schemas/InvalidApiKey"
        ], name)
      }
    }
    // The document itself is served without authentication and is not one of its operations.
    assert.notProperty(doc.paths, "/openapi.json")
  })

  it("D1 OpenAPI each error code has its named D1 schema; Effect's own decode-error body is not in the document", async () => {
    const doc = await served()
    for (
      const [name, code] of [
        ["ValidationFailed", "validation_failed"],
        ["AuthenticationRequired", "authentication_required"],
        ["InvalidApiKey", "invalid_api_key"],
        ["ResourceNotFound", "resource_not_found"],
        ["InternalError", "internal_error"]
      ] as const
    ) {
      assert.deepStrictEqual(doc.components.schemas[name].properties.error.properties.code.enum, [code], name)
    }
    assert.notProperty(doc.components.schemas, "HttpApiDecodeError")
    assert.notProperty(doc.components.schemas, "Issue")
    const create = doc.paths["/payment_intents"].post
    assert.strictEqual(create.responses["413"].content["application/json"].schema.$ref, "#/components/schemas/ValidationFailed")
    for (const status of ["200", "201"]) {
      assert.strictEqual(create.responses[status].content["application/json"].schema.$ref, "#/components/schemas/PaymentIntentCreated")
    }
  })

  it("5 D1 the definition: every endpoint but the catalogue, the document, the hosted checkout (its signed link is its credential) and the providers' door (D11: the provider's signature is its credential) authenticates; every JSON body is checked by JsonBody", () => {
    const seen: Array<string> = []
    HttpApi.reflect(Api.TenderApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, group, middleware, payloads }) => {
        const name = `${endpoint.method} ${endpoint.path}`
        seen.push(name)
        const isPublic = name === "GET /webhook_event_types" || name === "GET /openapi.json" || group.identifier === "hostedCheckout" ||
          group.identifier === "providerNotifications"
        assert.strictEqual([...middleware].some(HttpApiMiddleware.isSecurity), !isPublic, name)
        const keys = [...middleware].map((m) => m.key)
        assert.strictEqual(keys.includes(Api.Authentication.key), !isPublic, name)
        if (endpoint.method !== "GET" && payloads.has("application/json")) assert.include(keys, Api.JsonBody.key, name)
      }
    })
    assert.include(seen, "POST /payment_intents")
  })
})

describe("the D1 error schemas", () => {
  it("D1 an error schema encodes the body the API sends, for the current request id, and decodes it back to core's error", () => {
    const schema = errorSchema(Errors.ValidationFailed)
    const error = Errors.ValidationFailed.many([{ param: "amount", message: "amount is required" }, { message: "The request is invalid" }])
    const body = Effect.runSync(
      Schema.encode(schema)(error).pipe(
        Effect.locally(CurrentSeen, { requestId: "req_test", resolved: { url: "/", path: "/", route: undefined }, merchantId: undefined })
      )
    )
    assert.deepStrictEqual(body, Errors.errorBody(error, "req_test"))
    const decoded = Schema.decodeUnknownSync(schema)(body)
    assert.instanceOf(decoded, Errors.ValidationFailed)
    assert.deepStrictEqual(decoded.details, error.details)
    // A 413 is validation_failed too, but not a 400: the 400 schema refuses it.
    assert.isFalse(Schema.is(Schema.typeSchema(schema))(new Errors.PayloadTooLarge({ message: "too large" })))
  })
})
