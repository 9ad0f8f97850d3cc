/**
 * Names of 0.1.0 that moved keep working (issue 49, one home per concept): the deprecated alias
 * is the same value as its new home, so a host that still imports the old name runs unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Storage, Task, WebhookConfig, WebhookEndpoint } from "../src/index.js"

describe("deprecated names of 0.1.0", () => {
  it("WebhookEndpoint's webhook settings are WebhookConfig's", () => {
    assert.strictEqual(WebhookEndpoint.WebhookConfig, WebhookConfig.WebhookConfig)
    assert.strictEqual(WebhookEndpoint.layerConfig, WebhookConfig.layerConfig)
  })

  it("WebhookEndpoint.scopeOf is Storage.scopeOf, which reads a caller and a record alike", () => {
    assert.strictEqual(WebhookEndpoint.scopeOf, Storage.scopeOf)
    const merchant = { id: "mer_1" } as Parameters<typeof WebhookEndpoint.scopeOf>[0]["merchant"]
    assert.deepStrictEqual(Storage.scopeOf({ merchant, environment: "test" }), { merchantId: "mer_1", environment: "test" })
    assert.deepStrictEqual(Storage.scopeOf({ merchantId: "mer_2", environment: "live" }), { merchantId: "mer_2", environment: "live" })
  })

  it("Task.done is a Done outcome with the writes given, none by default", () => {
    assert.deepStrictEqual(Task.done(), { _tag: "Done", writes: [] })
  })
})
