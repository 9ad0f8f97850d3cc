/**
 * The client's retries against scripted local servers and Tender: which answers are retried
 * (429, 5xx, a 409 with Retry-After, i.e. in flight, no answer) and which never are (every other 4xx), the Idempotency-Key kept
 * across the retries of one POST, Retry-After honoured, and the bound `maxRetries`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeHttp from "@tender/http/NodeHttp"
import * as TenderHttp from "@tender/http/TenderHttp"
import { hosted, promptpay } from "@tender/repo-test-support"
import type { IncomingMessage, ServerResponse } from "node:http"
import { gated, keys, layer } from "../../core/test/fixtures.js"
import { TenderApiError, TenderClient, type TenderClientOptions, TenderConnectionError } from "../src/index.js"
import { backoffMs, retryAfterMs } from "../src/internal/retry.js"
import { bodyOf, listen, tender } from "./servers.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly key: string | undefined
  readonly body: string
  readonly at: number
}

type Answer = { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> } | "hang up" | "stall"

const error = (code: string) => ({ error: { code, message: code, request_id: "req_scripted" } })
const intent = { object: "payment_intent", id: "dord_scripted" }

/** A server answering its requests from `script` in order (the last answer repeats); what it saw. */
const scripted = async (script: ReadonlyArray<Answer>) => {
  const seen: Array<Seen> = []
  const url = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await bodyOf(req)
    seen.push({ method: req.method ?? "", url: req.url ?? "", key: req.headers["idempotency-key"] as string | undefined, body, at: Date.now() })
    const answer = script[Math.min(seen.length, script.length) - 1]!
    if (answer === "hang up") return void req.socket.destroy()
    if (answer === "stall") return
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
    res.end(answer.body === undefined ? "" : JSON.stringify(answer.body))
  })
  return { seen, url }
}

/** A client with short back-offs, so that retries take milliseconds. */
const clientOf = (url: string, options: Partial<TenderClientOptions> = {}) =>
  new TenderClient({ baseUrl: url, publicKey: "pk_test_x", secretKey: "sk_test_x", initialRetryDelayMs: 5, maxRetryDelayMs: 20, ...options })

describe("client: retries", () => {
  it("client: 503 then 201: the POST is sent again with the same generated Idempotency-Key and the same body", async () => {
    const server = await scripted([{ status: 503, body: error("service_unavailable"), headers: { "retry-after": "0" } }, { status: 201, body: intent }])
    const created = await clientOf(server.url).paymentIntents.create(hosted)
    assert.strictEqual(created.id, "dord_scripted")
    assert.lengthOf(server.seen, 2)
    assert.match(server.seen[0]!.key ?? "", /^[0-9a-f-]{36}$/)
    assert.strictEqual(server.seen[1]!.key, server.seen[0]!.key)
    assert.strictEqual(server.seen[1]!.body, server.seen[0]!.body)
    assert.deepStrictEqual(JSON.parse(server.seen[1]!.body), hosted)
  })

  it("client: a given idempotencyKey is the one every attempt sends; 500, 502 and a dropped connection are retried", async () => {
    const server = await scripted([{ status: 500, body: error("internal_error") }, "hang up", { status: 201, body: intent }])
    await clientOf(server.url).paymentIntents.create(hosted, { idempotencyKey: "order-7" })
    assert.deepStrictEqual(server.seen.map((s) => s.key), ["order-7", "order-7", "order-7"])
    const gateway = await scripted([{ status: 502, body: "<html>bad gateway</html>" }, { status: 200, body: intent }])
    assert.strictEqual((await clientOf(gateway.url).paymentIntents.retrieve("dord_scripted")).id, "dord_scripted")
    assert.lengthOf(gateway.seen, 2)
    assert.isUndefined(gateway.seen[0]!.key, "a GET carries no key")
  })

  it("client: 429 with Retry-After: 1 waits at least that second before the retry", async () => {
    const server = await scripted([{ status: 429, body: error("rate_limited"), headers: { "retry-after": "1" } }, { status: 201, body: intent }])
    await clientOf(server.url).paymentIntents.create(hosted)
    assert.lengthOf(server.seen, 2)
    assert.isAtLeast(server.seen[1]!.at - server.seen[0]!.at, 950)
  })

  it("4.9.6 client: 409 idempotency_conflict with Retry-After (the key still in flight) is retried with the same key; 409 payment_intent_unexpected_state is not", async () => {
    const inFlight = { status: 409, body: { error: { ...error("idempotency_conflict").error, param: "Idempotency-Key" } }, headers: { "retry-after": "0" } }
    const server = await scripted([inFlight, { status: 201, body: intent }])
    await clientOf(server.url).paymentIntents.create(hosted)
    assert.lengthOf(server.seen, 2)
    assert.strictEqual(server.seen[1]!.key, server.seen[0]!.key)
    const state = await scripted([{ status: 409, body: error("payment_intent_unexpected_state") }])
    const e = await clientOf(state.url).paymentIntents.cancel("dord_scripted").catch((x: unknown) => x)
    assert.strictEqual((e as TenderApiError).code, "payment_intent_unexpected_state")
    assert.lengthOf(state.seen, 1)
  })

  it("4.9.5 client: 409 idempotency_conflict without Retry-After (the key used with another body) is thrown after exactly one request", async () => {
    const server = await scripted([{ status: 409, body: { error: { ...error("idempotency_conflict").error, param: "Idempotency-Key" } } }, {
      status: 201,
      body: intent
    }])
    const e = await clientOf(server.url).paymentIntents.create(hosted, { idempotencyKey: "order-8" }).catch((x: unknown) => x)
    assert.strictEqual((e as TenderApiError).code, "idempotency_conflict")
    assert.lengthOf(server.seen, 1)
  })

  it("4.9.5 client: against Tender, the same key with a changed body surfaces the conflict after exactly one request", async () => {
    const { url } = await tender()
    const sent: Array<string> = []
    const counting = (request: Request) => {
      sent.push(request.method)
      return fetch(request)
    }
    const client = new TenderClient({
      baseUrl: url,
      publicKey: keys.demoTest.public,
      secretKey: keys.demoTest.secret,
      fetch: counting,
      initialRetryDelayMs: 5,
      maxRetryDelayMs: 20
    })
    await client.paymentIntents.create(hosted, { idempotencyKey: "order-9" })
    assert.lengthOf(sent, 1)
    const e = await client.paymentIntents.create({ ...hosted, amount: "12345" }, { idempotencyKey: "order-9" }).catch((x: unknown) => x)
    assert.instanceOf(e, TenderApiError)
    assert.deepStrictEqual([(e as TenderApiError).status, (e as TenderApiError).code], [409, "idempotency_conflict"])
    assert.lengthOf(sent, 2, "the conflict is not retried")
  })

  it("4.9.6 client: against Tender, a call whose key is still in flight gets 409 with Retry-After, waits it and gets the original's answer", async () => {
    const { provider, release, called } = gated()
    const web = TenderHttp.toWebHandler(layer({ providers: [provider] }))
    try {
      const url = await listen((req, res) => void web.handler(NodeHttp.toRequest(req)).then((r) => NodeHttp.writeResponse(r, res)))
      const answers: Array<[number, string | null]> = []
      const watching = async (request: Request) => {
        const response = await fetch(request)
        answers.push([response.status, response.headers.get("retry-after")])
        // The in-flight answer seen: let the original finish while the client waits.
        if (response.status === 409) release()
        return response
      }
      const client = new TenderClient({
        baseUrl: url,
        publicKey: keys.demoTest.public,
        secretKey: keys.demoTest.secret,
        fetch: watching,
        initialRetryDelayMs: 5,
        maxRetryDelayMs: 20
      })
      const first = client.paymentIntents.create(promptpay, { idempotencyKey: "order-in-flight" })
      await called
      const second = await client.paymentIntents.create(promptpay, { idempotencyKey: "order-in-flight" })
      assert.strictEqual(second.id, (await first).id)
      assert.deepStrictEqual(answers.slice(0, 2), [[409, "1"], [201, null]], "the in-flight 409, then the replay")
      assert.lengthOf(answers, 3)
    } finally {
      await web.dispose()
    }
  })

  it("client: 400, 401, 403, 404 and 422 are sent once and thrown", async () => {
    for (
      const [status, code] of [[400, "validation_failed"], [401, "invalid_api_key"], [403, "checkout_mode_not_allowed"], [404, "resource_not_found"], [
        422,
        "routing_unavailable"
      ]] as const
    ) {
      const server = await scripted([{ status, body: error(code) }, { status: 201, body: intent }])
      const e = await clientOf(server.url).paymentIntents.create(hosted).catch((x: unknown) => x)
      assert.instanceOf(e, TenderApiError)
      assert.strictEqual((e as TenderApiError).status, status)
      assert.strictEqual((e as TenderApiError).code, code)
      assert.strictEqual((e as TenderApiError).requestId, "req_scripted")
      assert.lengthOf(server.seen, 1, `${status} is not retried`)
    }
  })

  it("client: maxRetries bounds the attempts (default 2: three requests), 0 turns retries off; the last answer is thrown", async () => {
    const down = await scripted([{ status: 503, body: error("service_unavailable") }])
    const e = await clientOf(down.url).paymentIntents.create(hosted).catch((x: unknown) => x)
    assert.strictEqual((e as TenderApiError).status, 503)
    assert.strictEqual((e as TenderApiError).code, "service_unavailable")
    assert.lengthOf(down.seen, 3)
    const once = await scripted([{ status: 503, body: error("service_unavailable") }])
    await clientOf(once.url, { maxRetries: 0 }).paymentIntents.create(hosted).catch(() => undefined)
    assert.lengthOf(once.seen, 1)
    // A Retry-After past a minute is the server's answer to the caller, not a wait inside a call.
    const later = await scripted([{ status: 503, body: error("service_unavailable"), headers: { "retry-after": "3600" } }, { status: 201, body: intent }])
    assert.strictEqual((await clientOf(later.url).paymentIntents.create(hosted).catch((x: unknown) => x) as TenderApiError).status, 503)
    assert.lengthOf(later.seen, 1)
  })

  it("client: a non-D1 error body is TenderApiError code unexpected_response with the text as body", async () => {
    const server = await scripted([{ status: 418, body: "teapot" }])
    const e = await clientOf(server.url).paymentIntents.retrieve("dord_x").catch((x: unknown) => x) as TenderApiError
    assert.strictEqual(e.status, 418)
    assert.strictEqual(e.code, "unexpected_response")
    assert.strictEqual(e.body, "teapot")
  })

  it("client: no answer within timeoutMs on any attempt -> TenderConnectionError with the attempts and the key they carried", async () => {
    const server = await scripted(["stall"])
    const e = await clientOf(server.url, { timeoutMs: 100, maxRetries: 1 }).paymentIntents.create(hosted).catch((x: unknown) => x)
    assert.instanceOf(e, TenderConnectionError)
    const c = e as TenderConnectionError
    assert.strictEqual(c.attempts, 2)
    assert.lengthOf(server.seen, 2)
    assert.strictEqual(c.idempotencyKey, server.seen[0]!.key)
    assert.strictEqual(server.seen[1]!.key, c.idempotencyKey)
  })

  it("client: the caller's AbortSignal ends the call at once, never retried", async () => {
    const server = await scripted(["stall"])
    const controller = new AbortController()
    const call = clientOf(server.url).paymentIntents.retrieve("dord_x", { signal: controller.signal }).catch((x: unknown) => x)
    while (server.seen.length === 0) await new Promise((ok) => setTimeout(ok, 5))
    controller.abort()
    const e = await call
    assert.notInstanceOf(e, TenderConnectionError)
    assert.strictEqual((e as Error).name, "AbortError")
    assert.lengthOf(server.seen, 1)
  })

  it("client: back-off doubles up to its cap, with jitter between half and all of it; Retry-After reads seconds and HTTP dates", () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 5000 }
    for (let i = 0; i < 50; i++) {
      const first = backoffMs(policy, 0)
      assert.isAtLeast(first, 250)
      assert.isAtMost(first, 500)
      const late = backoffMs(policy, 10)
      assert.isAtLeast(late, 2500)
      assert.isAtMost(late, 5000)
    }
    assert.strictEqual(retryAfterMs("2", 0), 2000)
    assert.strictEqual(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000)
    assert.isUndefined(retryAfterMs("soon", 0))
    assert.isUndefined(retryAfterMs(null, 0))
  })
})
