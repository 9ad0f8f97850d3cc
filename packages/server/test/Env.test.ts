/**
 * settingsFromEnv (docs/server.md, "Settings from the environment"): the variables a host's
 * start-up reads, their defaults, and a clear validation_failed naming the variable when one
 * cannot be used.
 */
import { assert, describe, it } from "vitest"
import { isTenderError, settingsFromEnv } from "../src/index.js"

const defaults = { port: 3001, checkoutSecret: "default-secret-1234", merchants: "./seed.json" }

/** The error `f` throws: a TenderError validation_failed, as createTender's own option checks throw. */
const refusal = (f: () => unknown) => {
  try {
    f()
  } catch (error) {
    if (isTenderError(error)) return error
    throw error
  }
  throw new Error("expected a refusal")
}

describe("settingsFromEnv", () => {
  it("unset or empty variables take the host's defaults; the public URL defaults to the loopback port under /payments", () => {
    const settings = settingsFromEnv({ PORT: "", DATABASE_URL: "" }, defaults)
    assert.deepInclude(settings, {
      port: 3001,
      databaseUrl: undefined,
      publicUrl: "http://127.0.0.1:3001/payments",
      checkoutSecret: "default-secret-1234",
      tablePrefix: undefined,
      merchants: "./seed.json"
    })
    assert.strictEqual(settingsFromEnv({ PORT: "8080" }, { ...defaults, path: "/pay" }).publicUrl, "http://127.0.0.1:8080/pay")
  })

  it("the environment wins over the defaults, and onPool gives createTender's options on the host's pool", () => {
    const pool = { connect: () => {}, query: () => {}, on: () => {}, end: () => {} }
    const settings = settingsFromEnv({
      PORT: " 4000 ",
      DATABASE_URL: "postgres://shop@db:5432/shop",
      PUBLIC_URL: "https://shop.example.com/payments",
      TENDER_CHECKOUT_SECRET: "from-the-environment",
      TENDER_TABLE_PREFIX: "pay_",
      TENDER_SEED: "/etc/tender/seed.json"
    }, defaults)
    assert.strictEqual(settings.port, 4000)
    assert.strictEqual(settings.databaseUrl, "postgres://shop@db:5432/shop")
    assert.deepStrictEqual(settings.onPool(pool), {
      storage: { postgres: pool, tablePrefix: "pay_" },
      publicUrl: "https://shop.example.com/payments",
      checkoutSecret: "from-the-environment",
      merchants: "/etc/tender/seed.json"
    })
  })

  it("a PORT that is not a port number from 0 to 65535 is refused, naming PORT", () => {
    for (const port of ["http", "-1", "65536", "80.5", "1e3", "0x50"]) {
      const error = refusal(() => settingsFromEnv({ PORT: port }, defaults))
      assert.strictEqual(error.code, "validation_failed", port)
      assert.strictEqual(error.param, "PORT", port)
      assert.include(error.message, JSON.stringify(port))
    }
    assert.strictEqual(settingsFromEnv({ PORT: "0" }, defaults).port, 0)
  })

  it("a PUBLIC_URL that is not an http or https URL is refused, naming PUBLIC_URL", () => {
    for (const url of ["shop.example.com/payments", "ftp://shop.example.com/payments"]) {
      assert.strictEqual(refusal(() => settingsFromEnv({ PUBLIC_URL: url }, defaults)).param, "PUBLIC_URL", url)
    }
  })

  it("no checkout secret in the environment nor the defaults is refused, naming TENDER_CHECKOUT_SECRET", () => {
    const error = refusal(() => settingsFromEnv({}, { port: 3001 }))
    assert.strictEqual(error.param, "TENDER_CHECKOUT_SECRET")
    assert.strictEqual(error.status, 400)
  })

  it("D13 TENDER_PROVIDER_ACCOUNT_KEYS is read as id:key pairs, newest first, into onPool; a pair without its id is refused naming the variable, never its value", () => {
    const pool = { connect: () => {}, query: () => {}, on: () => {}, end: () => {} }
    const settings = settingsFromEnv({ TENDER_PROVIDER_ACCOUNT_KEYS: "new:bmV3a2V5, old:b2xka2V5" }, defaults)
    assert.deepStrictEqual(settings.providerAccountKeys, [{ id: "new", key: "bmV3a2V5" }, { id: "old", key: "b2xka2V5" }])
    assert.deepStrictEqual(settings.onPool(pool).providerAccountKeys, settings.providerAccountKeys)
    assert.isUndefined(settingsFromEnv({}, defaults).onPool(pool).providerAccountKeys)
    const error = refusal(() => settingsFromEnv({ TENDER_PROVIDER_ACCOUNT_KEYS: "bm9JZEtleVNFQ1JFVA==" }, defaults))
    assert.strictEqual(error.param, "TENDER_PROVIDER_ACCOUNT_KEYS")
    assert.notInclude(error.message, "bm9JZEtleVNFQ1JFVA")
  })
})
