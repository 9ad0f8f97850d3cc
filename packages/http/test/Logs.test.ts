/**
 * What reaches the host's logger (D1: 5xx details go to the log only; D2: secrets never).
 * A representative flow runs through the real fetch handler with Effect's logger replaced by
 * one that keeps every message, annotation, span and cause as text (each value inspected in
 * depth, so a field an error carries is seen even if its message is clean), at every level.
 * None of it may hold a secret key, an `Authorization` value, a webhook signing secret or a
 * full bank account number.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStorage, Storage } from "@tender/core"
import { bankTransfer as bankTransferBody, promptpayNamed as promptpay } from "@tender/repo-test-support"
import { Cause, Effect, HashMap, Layer, List, Logger, LogLevel } from "effect"
import { inspect } from "node:util"
import { keys, layer } from "../../core/test/fixtures.js"
import type { Key } from "./harness.js"
import { app, basic, brokenDirectory, brokenStorage, call, formWith, png } from "./harness.js"

const accountNumber = "7712345678901"

const bankTransfer = bankTransferBody(accountNumber)

const text = (value: unknown) => typeof value === "string" ? value : inspect(value, { depth: 8, breakLength: Infinity, getters: false })

/** A logger keeping everything it is given as text; every level. */
const capturing = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, cause, logLevel, message, spans }) => {
    const parts = [logLevel.label, ...(Array.isArray(message) ? message : [message]).map(text)]
    for (const [k, v] of HashMap.toEntries(annotations)) parts.push(`${k}=${text(v)}`)
    for (const span of List.toArray(spans)) parts.push(`span ${span.label}`)
    if (!Cause.isEmpty(cause)) {
      parts.push(Cause.pretty(cause, { renderErrorCause: true }))
      for (const failure of [...Cause.failures(cause), ...Cause.defects(cause)]) parts.push(text(failure))
    }
    lines.push(parts.join(" | "))
  })
  const layer = Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.All))
  return { lines, layer }
}

/** A store whose commit dies with a defect: the unexpected-failure path. */
const dyingStorage = Layer.effect(
  Storage.Storage,
  Effect.map(Storage.Storage, (s) => ({ ...s, commit: () => Effect.die(new Error("adapter bug")) }))
).pipe(Layer.provide(MemoryStorage.layer))

describe("what reaches the logger (D1, D2)", () => {
  it("D2 no secret key, Authorization value, whsec_ secret or full account number in any log line, message, annotation or cause of a representative flow", async () => {
    const { lines, layer: capture } = capturing()
    const h = app(Layer.mergeAll(layer(), capture))
    const h500 = app(Layer.mergeAll(layer({ storage: brokenStorage }), capture))
    const hDirectory = app(Layer.merge(layer(), brokenDirectory).pipe(Layer.merge(capture)))
    const hDefect = app(Layer.mergeAll(layer({ storage: dyingStorage }), capture))

    const wrongSecrets: Array<Key> = [
      { public: keys.demoTest.public, secret: "sk_test_wrongSECRETzzzz9999" },
      { public: keys.demoLive.public, secret: "sk_live_wrongSECRETyyyy8888" },
      { public: "pk_test_unknownKKKK0000", secret: "sk_test_unknownSECRETxxxx7777" },
      { public: keys.demoTest.public, secret: keys.demoLive.secret }
    ]
    const sentAuthorizations: Array<string> = []
    const send = (handler: typeof h, method: string, path: string, options: Parameters<typeof call>[3] = {}) => {
      if (options.key !== undefined) sentAuthorizations.push(basic(options.key))
      const auth = options.headers?.["authorization"]
      if (auth !== undefined) sentAuthorizations.push(auth)
      return call(handler, method, path, options)
    }

    // Creates: accepted, refused by decoding, by the operation, by routing; with the account number.
    const created = await send(h, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer, headers: { "idempotency-key": "logs-1" } })
    assert.strictEqual(created.status, 201, created.text)
    await send(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...bankTransfer, amount: "0" } })
    await send(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: { ...bankTransfer, payment_method_options: { ...bankTransfer.payment_method_options, account_number: accountNumber + "x" } }
    })
    await send(h, "POST", "/payment_intents", { key: keys.hostedOnly, body: bankTransfer })
    await send(h, "POST", "/payment_intents", { key: keys.unconfigured, body: bankTransfer })
    await send(h, "POST", "/payment_intents", { key: keys.degraded, body: promptpay })
    await send(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...bankTransfer, amount: "150001" }, headers: { "idempotency-key": "logs-1" } })
    await send(h, "POST", "/payment_intents", {
      key: keys.demoTest,
      raw: `{"payment_method_options":{"account_number":"${accountNumber}"`,
      headers: { "content-type": "application/json" }
    })

    // 5xx: a storage fault, a directory fault, a defect; each logged by design.
    const s500 = await send(h500, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer, headers: { "idempotency-key": "logs-500" } })
    assert.strictEqual(s500.status, 500, s500.text)
    assert.strictEqual((await send(h500, "GET", "/payment_intents", { key: keys.demoTest })).status, 500)
    assert.strictEqual((await send(hDirectory, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer })).status, 500)
    assert.strictEqual(
      (await send(hDefect, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer, headers: { "idempotency-key": "logs-defect" } })).status,
      500
    )

    // 401s: wrong secrets, revoked, garbage.
    for (const key of [...wrongSecrets, keys.revoked]) {
      assert.strictEqual((await send(h, "POST", "/payment_intents", { key, body: bankTransfer })).status, 401)
      assert.strictEqual((await send(h, "GET", "/payment_intents", { key })).status, 401)
    }
    for (
      const authorization of [
        `Bearer ${keys.demoTest.secret}`,
        `Basic ${keys.demoTest.secret}`,
        "Basic " + Buffer.from(`:${keys.otherTest.secret}`).toString("base64")
      ]
    ) {
      assert.strictEqual((await send(h, "GET", "/payment_intents", { headers: { authorization } })).status, 401)
    }

    // Uploads and receipts, fine and failing.
    const asset = await send(h, "POST", "/assets", { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "logs-upload" } })
    assert.strictEqual(asset.status, 201, asset.text)
    await send(h, "POST", "/assets", { key: keys.demoTest, form: formWith(new TextEncoder().encode("GIF89a")), headers: { "idempotency-key": "logs-gif" } })
    await send(h500, "POST", "/assets", { key: keys.demoTest, form: formWith(png()), headers: { "idempotency-key": "logs-upload-500" } })
    await send(h, "POST", `/payment_intents/${created.json.id}/receipt`, { key: keys.demoTest, body: { asset_id: asset.json.id } })
    await send(h, "POST", `/payment_intents/${created.json.id}/confirm`, { key: keys.demoTest })
    await send(h500, "POST", `/payment_intents/${created.json.id}/confirm`, { key: keys.demoTest })

    // Webhook endpoints: the signing secret is answered once, and never logged.
    const endpoint = await send(h, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/hook" } })
    assert.match(endpoint.json.secret, /^whsec_/)
    await send(h500, "POST", "/webhook_endpoints", { key: keys.demoTest, body: { url: "http://127.0.0.1:9/hook" } })

    // The capture works: the 5xx were logged, with their causes.
    const log = lines.join("\n")
    assert.isAtLeast(lines.length, 5)
    assert.include(log, "connection refused")
    assert.include(log, "directory down")
    assert.include(log, "adapter bug")

    const secrets = [
      ...Object.values(keys).map((k) => k.secret),
      ...wrongSecrets.map((k) => k.secret),
      ...sentAuthorizations,
      ...sentAuthorizations.map((a) => a.replace(/^\S+\s+/, "")),
      endpoint.json.secret as string,
      accountNumber
    ]
    for (const secret of secrets) assert.notInclude(log, secret, `a log line holds ${secret.slice(0, 12)}…`)
    assert.notMatch(log, /sk_(test|live)_/)
    assert.notMatch(log, /whsec_/)
    assert.notMatch(log, /Basic [A-Za-z0-9+/=]{8,}/)
  })
})
