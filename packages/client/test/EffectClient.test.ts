/**
 * docs/client.md, "Effect hosts": the client Effect derives from the API definition
 * (`HttpApiClient.make(Api.TenderApi)`), run as the page shows it, against a real Tender.
 */
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Api } from "@tender/http"
import { promptpay } from "@tender/repo-test-support"
import { Effect } from "effect"
import { keys } from "../../core/test/fixtures.js"
import { tender } from "./servers.js"

describe("client: Effect hosts (HttpApiClient over TenderApi)", () => {
  it("client: docs/client.md's HttpApiClient example creates and retrieves a payment intent and fails with the typed D1 error", async () => {
    const { url } = await tender()
    const publicKey = keys.demoTest.public
    const secretKey = keys.demoTest.secret
    // As in docs/client.md:
    const program = Effect.gen(function*() {
      const tender = yield* HttpApiClient.make(Api.TenderApi, {
        baseUrl: url,
        transformClient: HttpClient.mapRequest(HttpClientRequest.basicAuth(publicKey, secretKey))
      })
      const intent = yield* tender.paymentIntents.create({ payload: promptpay, headers: { "idempotency-key": crypto.randomUUID() } })
      const again = yield* tender.paymentIntents.retrieve({ path: { id: intent.id } })
      const missing = yield* tender.paymentIntents.retrieve({ path: { id: "dord_000000000000000000000000" } }).pipe(
        Effect.catchTag("ResourceNotFound", (e) => Effect.succeed(e.code))
      )
      return { intent, again, missing }
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const { again, intent, missing } = await Effect.runPromise(program)
    assert.strictEqual(intent.status, "requires_action")
    assert.strictEqual(again.id, intent.id)
    assert.strictEqual(missing, "resource_not_found")
  })
})
