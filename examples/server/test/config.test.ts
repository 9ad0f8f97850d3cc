import { describe, expect, it } from "vitest"
import { InvalidConfig, options } from "../src/config.js"

describe("demo server configuration: retention (docs/retention.md)", () => {
  it("retention: the purge is on by default, with the documented defaults", () => {
    expect(options({}).retention).toEqual({
      every: 3_600_000,
      events: "30 days",
      finishedTasks: "7 days",
      webhookAttempts: "30 days",
      batchSize: 1000
    })
  })

  it("retention: TENDER_PURGE=off turns the scheduled purge off; the retention variables reach its options", () => {
    expect(options({ TENDER_PURGE: "off" }).retention).toBeUndefined()
    expect(
      options({
        TENDER_PURGE_EVERY_MS: "60000",
        TENDER_EVENTS_RETENTION_DAYS: "90",
        TENDER_TASKS_RETENTION_DAYS: "1",
        TENDER_WEBHOOK_ATTEMPTS_RETENTION_DAYS: "45",
        TENDER_PURGE_BATCH_SIZE: "500"
      }).retention
    ).toEqual({ every: 60_000, events: "90 days", finishedTasks: "1 days", webhookAttempts: "45 days", batchSize: 500 })
  })

  it("retention: a bad value stops the server with a message naming the variable", () => {
    for (const [name, value] of [["TENDER_PURGE", "sometimes"], ["TENDER_EVENTS_RETENTION_DAYS", "0"], ["TENDER_PURGE_BATCH_SIZE", "-5"]] as const) {
      expect(() => options({ [name]: value })).toThrow(InvalidConfig)
      expect(() => options({ [name]: value })).toThrow(name)
    }
  })
})

describe("demo server configuration: prepared statements (docs/postgres.md)", () => {
  it("TENDER_PG_PREPARED_STATEMENTS is on by default, off turns it off, anything else stops the server naming the variable", () => {
    expect(options({}).preparedStatements).toBe(true)
    expect(options({ TENDER_PG_PREPARED_STATEMENTS: "off" }).preparedStatements).toBe(false)
    expect(options({ TENDER_PG_PREPARED_STATEMENTS: "on" }).preparedStatements).toBe(true)
    expect(() => options({ TENDER_PG_PREPARED_STATEMENTS: "false" })).toThrow("TENDER_PG_PREPARED_STATEMENTS must be on or off")
  })
})

describe("demo server configuration: Stripe (docs/providers/stripe.md)", () => {
  it("Stripe: unset installs no Stripe; STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (comma-separated lists) and STRIPE_API_BASE reach the adapter", () => {
    expect(options({}).stripe).toBeUndefined()
    expect(
      options({
        STRIPE_SECRET_KEY: "sk_test_a, sk_live_b",
        STRIPE_WEBHOOK_SECRET: "whsec_1",
        STRIPE_API_BASE: "http://127.0.0.1:12111"
      }).stripe
    ).toEqual({ secretKey: ["sk_test_a", "sk_live_b"], webhookSecret: ["whsec_1"], apiBase: "http://127.0.0.1:12111" })
  })

  it("Stripe: one variable without the other, a key that is not a secret key, or an API base that is not an origin stops the server naming the variable", () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ STRIPE_SECRET_KEY: "sk_test_a" }, "STRIPE_WEBHOOK_SECRET"],
      [{ STRIPE_WEBHOOK_SECRET: "whsec_1" }, "STRIPE_SECRET_KEY"],
      [{ STRIPE_SECRET_KEY: "pk_test_a", STRIPE_WEBHOOK_SECRET: "whsec_1" }, "STRIPE_SECRET_KEY"],
      [{ STRIPE_SECRET_KEY: "sk_test_a", STRIPE_WEBHOOK_SECRET: "whsec_1", STRIPE_API_BASE: "api.stripe.com/v1" }, "STRIPE_API_BASE"]
    ]
    for (const [env, name] of cases) {
      expect(() => options(env)).toThrow(InvalidConfig)
      expect(() => options(env)).toThrow(name)
    }
  })
})

describe("demo server configuration: Adyen (docs/providers/adyen.md)", () => {
  const base = { ADYEN_API_KEY: "AQE_key", ADYEN_MERCHANT_ACCOUNT: "ShopTH", ADYEN_HMAC_KEY: "0a1B, 2c3D" }
  it("Adyen: unset installs no Adyen; ADYEN_API_KEY, ADYEN_MERCHANT_ACCOUNT, ADYEN_HMAC_KEY (a list) and ADYEN_API_BASE with its version path reach the adapter", () => {
    expect(options({}).adyen).toBeUndefined()
    expect(options({ ...base, ADYEN_API_BASE: "https://127.0.0.1:8443/v72" }).adyen).toEqual({
      apiKey: "AQE_key",
      merchantAccount: "ShopTH",
      hmacKey: ["0a1B", "2c3D"],
      apiBase: "https://127.0.0.1:8443/v72",
      environment: "test",
      liveEndpointUrlPrefix: undefined
    })
    expect(options({ ...base, ADYEN_ENVIRONMENT: "live", ADYEN_LIVE_URL_PREFIX: "1797a841fbb37ca7-AdyenDemo" }).adyen).toMatchObject({
      environment: "live",
      liveEndpointUrlPrefix: "1797a841fbb37ca7-AdyenDemo"
    })
  })

  it("Adyen: a variable without the others, a key that is not hex, an API base without https or its version path, or live without its prefix stops the server naming the variable", () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ ADYEN_API_KEY: "AQE_key" }, "ADYEN_MERCHANT_ACCOUNT and ADYEN_HMAC_KEY missing"],
      [{ ...base, ADYEN_HMAC_KEY: "not-hex" }, "ADYEN_HMAC_KEY"],
      [{ ...base, ADYEN_API_BASE: "https://checkout-test.adyen.com" }, "ADYEN_API_BASE"],
      [{ ...base, ADYEN_API_BASE: "http://127.0.0.1:8443/v72" }, "ADYEN_API_BASE"],
      [{ ...base, ADYEN_ENVIRONMENT: "prod" }, "ADYEN_ENVIRONMENT"],
      [{ ...base, ADYEN_ENVIRONMENT: "live" }, "ADYEN_LIVE_URL_PREFIX"]
    ]
    for (const [env, name] of cases) {
      expect(() => options(env)).toThrow(InvalidConfig)
      expect(() => options(env)).toThrow(name)
    }
  })
})

describe("demo server configuration: route health (docs/discovery-and-routing.md)", () => {
  it("Route health: the breaker opens after 3 failures for 30 s by default; TENDER_ROUTE_FAILURE_THRESHOLD and TENDER_ROUTE_COOLDOWN_MS set them; a bad value stops the server naming the variable", () => {
    expect(options({}).routeHealth).toEqual({ failureThreshold: 3, cooldownMillis: 30_000 })
    expect(options({ TENDER_ROUTE_FAILURE_THRESHOLD: "5", TENDER_ROUTE_COOLDOWN_MS: "2000" }).routeHealth).toEqual({
      failureThreshold: 5,
      cooldownMillis: 2000
    })
    for (const [name, value] of [["TENDER_ROUTE_FAILURE_THRESHOLD", "0"], ["TENDER_ROUTE_COOLDOWN_MS", "30s"]] as const) {
      expect(() => options({ [name]: value })).toThrow(InvalidConfig)
      expect(() => options({ [name]: value })).toThrow(name)
    }
  })

  it("Stripe: STRIPE_TIMEOUT_MS reaches the adapter as its per-call timeout; unset leaves the adapter's default", () => {
    const stripe = { STRIPE_SECRET_KEY: "sk_test_a", STRIPE_WEBHOOK_SECRET: "whsec_1" }
    expect(options(stripe).stripe).not.toHaveProperty("timeoutMillis")
    expect(options({ ...stripe, STRIPE_TIMEOUT_MS: "5000" }).stripe).toMatchObject({ timeoutMillis: 5000 })
    expect(() => options({ ...stripe, STRIPE_TIMEOUT_MS: "-1" })).toThrow("STRIPE_TIMEOUT_MS")
  })
})

describe("demo server configuration: the simulator's timings (docs/test-environment.md)", () => {
  it("D9 TENDER_SIMULATOR_SLOW_MS and TENDER_SIMULATOR_EXPIRY_MS set the slow magic amounts' delays; unset keeps the simulator's defaults; a bad value stops the server naming the variable", () => {
    expect(options({}).simulatorTimings).toEqual({})
    expect(options({ TENDER_SIMULATOR_SLOW_MS: "", TENDER_SIMULATOR_EXPIRY_MS: "" }).simulatorTimings).toEqual({})
    expect(options({ TENDER_SIMULATOR_SLOW_MS: "1200" }).simulatorTimings).toEqual({ slowConfirmationMillis: 1200, slowRefundMillis: 1200 })
    expect(options({ TENDER_SIMULATOR_SLOW_MS: "1200", TENDER_SIMULATOR_EXPIRY_MS: "1500" }).simulatorTimings)
      .toEqual({ slowConfirmationMillis: 1200, slowRefundMillis: 1200, shortExpiryMillis: 1500 })
    const bad = [
      ["TENDER_SIMULATOR_SLOW_MS", "0"],
      ["TENDER_SIMULATOR_SLOW_MS", "1.5"],
      ["TENDER_SIMULATOR_EXPIRY_MS", "10s"],
      ["TENDER_SIMULATOR_EXPIRY_MS", "-1"],
      ["TENDER_SIMULATOR_EXPIRY_MS", "99999999999"]
    ] as const
    for (const [name, value] of bad) {
      expect(() => options({ [name]: value })).toThrow(InvalidConfig)
      expect(() => options({ [name]: value })).toThrow(`${name} must be a whole number of milliseconds from 1 to 2147483647`)
    }
  })
})
