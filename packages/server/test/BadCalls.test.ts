/**
 * Bad calls of the Promise API and bad `createTender` options: every one rejects with a
 * `TenderError` `validation_failed` (400) whose `param` and message name the argument or option
 * at fault and show what was given; never a `TypeError`, never a 500, and nothing runs.
 */
import { promptpay } from "@tender/repo-test-support"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, isTenderError, type TenderInstance, type TenderOptions } from "../src/index.js"
import { base, quietOptions } from "./fixtures.js"

const demo = { merchant: "mch_demo", environment: "test" } as const
const id = "dord_000000000000000000000000"

let tender: TenderInstance
beforeAll(async () => {
  tender = await createTender(quietOptions)
})
afterAll(() => tender.close())

/** One bad call: what it is, the call, the `param` it must name, and text its message must hold. */
type BadCall = readonly [name: string, call: (t: TenderInstance) => Promise<unknown>, param: string, says: string]

const any = (u: unknown) => u as never

const calls: ReadonlyArray<BadCall> = [
  // The scope every merchant operation takes.
  [
    "paymentIntents.retrieve without options",
    (t) => t.paymentIntents.retrieve(id, any(undefined)),
    "options",
    `paymentIntents.retrieve: argument "options" must be an object with merchant and environment, got undefined`
  ],
  ["paymentIntents.retrieve with options null", (t) => t.paymentIntents.retrieve(id, any(null)), "options", "got null"],
  ["paymentIntents.list with options a string", (t) => t.paymentIntents.list(undefined, any("mch_demo")), "options", `got "mch_demo"`],
  [
    "paymentIntents.retrieve with no merchant",
    (t) => t.paymentIntents.retrieve(id, any({ environment: "test" })),
    "merchant",
    `paymentIntents.retrieve: option "merchant" is required, got undefined`
  ],
  [
    "paymentIntents.retrieve with merchant 42",
    (t) => t.paymentIntents.retrieve(id, any({ merchant: 42, environment: "test" })),
    "merchant",
    `option "merchant" must be a non-empty string, got 42`
  ],
  [
    "paymentIntents.retrieve with merchant an object",
    (t) => t.paymentIntents.retrieve(id, any({ merchant: { id: "mch_demo" }, environment: "test" })),
    "merchant",
    "got an object"
  ],
  ["paymentIntents.retrieve with merchant empty", (t) => t.paymentIntents.retrieve(id, any({ merchant: "", environment: "test" })), "merchant", `got ""`],
  [
    "paymentIntents.retrieve with environment prod",
    (t) => t.paymentIntents.retrieve(id, any({ merchant: "mch_demo", environment: "prod" })),
    "environment",
    `paymentIntents.retrieve: option "environment" must be "test" or "live", got "prod"`
  ],
  [
    "paymentIntents.retrieve with no environment",
    (t) => t.paymentIntents.retrieve(id, any({ merchant: "mch_demo" })),
    "environment",
    `option "environment" is required`
  ],
  [
    "refunds.list with environment TEST",
    (t) => t.refunds.list(undefined, any({ merchant: "mch_demo", environment: "TEST" })),
    "environment",
    `refunds.list: option "environment"`
  ],
  [
    "payoutIntents.approve without options",
    (t) => t.payoutIntents.approve("pout_000000000000000000000000", any(undefined)),
    "options",
    `payoutIntents.approve: argument "options"`
  ],
  [
    "webhookEndpoints.retrieve with environment 1",
    (t) => t.webhookEndpoints.retrieve("we_x", any({ merchant: "mch_demo", environment: 1 })),
    "environment",
    "got 1"
  ],
  // Ids.
  [
    "paymentIntents.retrieve with id 42",
    (t) => t.paymentIntents.retrieve(any(42), demo),
    "id",
    `paymentIntents.retrieve: argument "id" must be a non-empty string of at most 100 characters, got 42`
  ],
  ["paymentIntents.retrieve with id undefined", (t) => t.paymentIntents.retrieve(any(undefined), demo), "id", "got undefined"],
  ["paymentIntents.retrieve with id empty", (t) => t.paymentIntents.retrieve("", demo), "id", `got ""`],
  ["paymentIntents.retrieve with id an object", (t) => t.paymentIntents.retrieve(any({ id }), demo), "id", "got an object"],
  ["paymentIntents.retrieve with an id of 101 characters", (t) => t.paymentIntents.retrieve("d".repeat(101), demo), "id", "at most 100 characters"],
  ["paymentIntents.confirm with id null", (t) => t.paymentIntents.confirm(any(null), demo), "id", `paymentIntents.confirm: argument "id"`],
  ["paymentIntents.cancel with id 1", (t) => t.paymentIntents.cancel(any(1), undefined, demo), "id", `paymentIntents.cancel: argument "id"`],
  ["paymentIntents.receipt with id an array", (t) => t.paymentIntents.receipt(any([id]), { asset_id: "asset_x" }, demo), "id", "got an array of 1"],
  ["refunds.retrieve with id true", (t) => t.refunds.retrieve(any(true), demo), "id", `refunds.retrieve: argument "id"`],
  ["payoutIntents.retrieve with id 0", (t) => t.payoutIntents.retrieve(any(0), demo), "id", `payoutIntents.retrieve: argument "id"`],
  ["payoutIntents.cancel with id undefined", (t) => t.payoutIntents.cancel(any(undefined), demo), "id", `payoutIntents.cancel: argument "id"`],
  ["payoutIntents.approve with id {}", (t) => t.payoutIntents.approve(any({}), demo), "id", `payoutIntents.approve: argument "id"`],
  ["webhookEndpoints.retrieve with id 5", (t) => t.webhookEndpoints.retrieve(any(5), demo), "id", `webhookEndpoints.retrieve: argument "id"`],
  ["webhookEndpoints.delete with id null", (t) => t.webhookEndpoints.delete(any(null), demo), "id", `webhookEndpoints.delete: argument "id"`],
  [
    "webhookEndpoints.rotateSecret with id 7",
    (t) => t.webhookEndpoints.rotateSecret(any(7), undefined, demo),
    "id",
    `webhookEndpoints.rotateSecret: argument "id"`
  ],
  ["merchants.retrieve with id 9", (t) => t.merchants.retrieve(any(9)), "id", `merchants.retrieve: argument "id"`],
  ["merchants.update with id undefined", (t) => t.merchants.update(any(undefined), any({ name: "x" })), "id", `merchants.update: argument "id"`],
  // Idempotency keys.
  [
    "paymentIntents.create with an object as idempotencyKey",
    (t) => t.paymentIntents.create(promptpay, any({ ...demo, idempotencyKey: { order: 1 } })),
    "idempotencyKey",
    `paymentIntents.create: option "idempotencyKey" must be a string of 1 to 255 printable ASCII characters, got an object`
  ],
  ["paymentIntents.create with idempotencyKey 42", (t) => t.paymentIntents.create(promptpay, any({ ...demo, idempotencyKey: 42 })), "idempotencyKey", "got 42"],
  ["paymentIntents.create with idempotencyKey empty", (t) => t.paymentIntents.create(promptpay, { ...demo, idempotencyKey: "" }), "idempotencyKey", `got ""`],
  [
    "paymentIntents.create with idempotencyKey of 256 characters",
    (t) => t.paymentIntents.create(promptpay, { ...demo, idempotencyKey: "k".repeat(256) }),
    "idempotencyKey",
    "1 to 255"
  ],
  [
    "paymentIntents.confirm with idempotencyKey not ASCII",
    (t) => t.paymentIntents.confirm(id, { ...demo, idempotencyKey: "ключ" }),
    "idempotencyKey",
    `paymentIntents.confirm: option "idempotencyKey"`
  ],
  [
    "payoutIntents.cancel with idempotencyKey an array",
    (t) => t.payoutIntents.cancel("pout_000000000000000000000000", any({ ...demo, idempotencyKey: ["a"] })),
    "idempotencyKey",
    `payoutIntents.cancel: option "idempotencyKey"`
  ],
  [
    "refunds.create with idempotencyKey true",
    (t) => t.refunds.create(any({ payment_intent: id }), any({ ...demo, idempotencyKey: true })),
    "idempotencyKey",
    `refunds.create: option "idempotencyKey"`
  ],
  [
    "webhookEndpoints.delete with idempotencyKey 1",
    (t) => t.webhookEndpoints.delete("we_x", any({ ...demo, idempotencyKey: 1 })),
    "idempotencyKey",
    `webhookEndpoints.delete: option "idempotencyKey"`
  ],
  // Bodies and queries that are not objects.
  [
    "paymentIntents.create without params",
    (t) => t.paymentIntents.create(any(undefined), demo),
    "params",
    `paymentIntents.create: argument "params" must be an object, got undefined`
  ],
  ["paymentIntents.create with params a string", (t) => t.paymentIntents.create(any("{}"), demo), "params", `got "{}"`],
  ["refunds.create with params null", (t) => t.refunds.create(any(null), demo), "params", `refunds.create: argument "params"`],
  ["payoutIntents.create with params an array", (t) => t.payoutIntents.create(any([]), demo), "params", "got an array of 0"],
  ["webhookEndpoints.create with params 1", (t) => t.webhookEndpoints.create(any(1), demo), "params", `webhookEndpoints.create: argument "params"`],
  [
    "paymentIntents.cancel with params a string",
    (t) => t.paymentIntents.cancel(id, any("duplicate"), demo),
    "params",
    `paymentIntents.cancel: argument "params" must be an object or undefined`
  ],
  ["paymentIntents.receipt with params 5", (t) => t.paymentIntents.receipt(id, any(5), demo), "params", `paymentIntents.receipt: argument "params"`],
  [
    "paymentIntents.list with query a string",
    (t) => t.paymentIntents.list(any("status=canceled"), demo),
    "query",
    `paymentIntents.list: argument "query" must be an object or undefined`
  ],
  ["refunds.list with query an array", (t) => t.refunds.list(any(["a"]), demo), "query", `refunds.list: argument "query"`],
  ["payoutIntents.list with query 1", (t) => t.payoutIntents.list(any(1), demo), "query", `payoutIntents.list: argument "query"`],
  ["webhookEndpoints.list with query true", (t) => t.webhookEndpoints.list(any(true), demo), "query", `webhookEndpoints.list: argument "query"`],
  ["merchants.create without params", (t) => t.merchants.create(any(undefined)), "params", `merchants.create: argument "params"`],
  ["merchants.update with params null", (t) => t.merchants.update("mch_demo", any(null)), "params", `merchants.update: argument "params"`],
  // Secret rotation's grace: the body its route takes (`expires_in`, whole seconds up to 7 days), decoded by the route's schema.
  [
    "webhookEndpoints.rotateSecret with expires_in -1",
    (t) => t.webhookEndpoints.rotateSecret("we_x", { expires_in: -1 }, demo),
    "expires_in",
    "from 0 to 604800"
  ],
  [
    "webhookEndpoints.rotateSecret with expires_in Infinity",
    (t) => t.webhookEndpoints.rotateSecret("we_x", { expires_in: Infinity }, demo),
    "expires_in",
    "from 0 to 604800"
  ],
  [
    "webhookEndpoints.rotateSecret with expires_in NaN",
    (t) => t.webhookEndpoints.rotateSecret("we_x", { expires_in: NaN }, demo),
    "expires_in",
    "from 0 to 604800"
  ],
  [
    "webhookEndpoints.rotateSecret with expires_in 1.5",
    (t) => t.webhookEndpoints.rotateSecret("we_x", { expires_in: 1.5 }, demo),
    "expires_in",
    "from 0 to 604800"
  ],
  [
    "webhookEndpoints.rotateSecret with expires_in a string",
    (t) => t.webhookEndpoints.rotateSecret("we_x", any({ expires_in: "1000" }), demo),
    "expires_in",
    "expires_in"
  ],
  [
    "webhookEndpoints.rotateSecret with expires_in past a week",
    (t) => t.webhookEndpoints.rotateSecret("we_x", { expires_in: 8 * 24 * 3600 }, demo),
    "expires_in",
    "from 0 to 604800"
  ],
  [
    "webhookEndpoints.rotateSecret with params a string",
    (t) => t.webhookEndpoints.rotateSecret("we_x", any("60"), demo),
    "params",
    `webhookEndpoints.rotateSecret: argument "params" must be an object or undefined`
  ],
  // The endpoints every merchant method shares its checks with.
  ["topupIntents.retrieve with id 3", (t) => t.topupIntents.retrieve(any(3), demo), "id", `topupIntents.retrieve: argument "id"`],
  [
    "events.list with query a string",
    (t) => t.events.list(any("type=refund.succeeded"), demo),
    "query",
    `events.list: argument "query" must be an object or undefined`
  ],
  [
    "paymentMethods.options without query",
    (t) => t.paymentMethods.options(any(undefined), demo),
    "query",
    `paymentMethods.options: argument "query" must be an object, got undefined`
  ],
  [
    "webhookEndpoints.attempts with options undefined",
    (t) => t.webhookEndpoints.attempts("we_x", undefined, any(undefined)),
    "options",
    `webhookEndpoints.attempts: argument "options"`
  ],
  [
    "webhookEndpoints.resend without params",
    (t) => t.webhookEndpoints.resend("we_x", any(undefined), demo),
    "params",
    `webhookEndpoints.resend: argument "params" must be an object`
  ],
  // Files: bytes, never a path or a string.
  [
    "assets.upload with a path",
    (t) => t.assets.upload(any("./receipt.png"), demo),
    "file",
    `assets.upload: argument "file" must be a Uint8Array (the file's bytes), got "./receipt.png"`
  ],
  // Key pairs.
  [
    "keys.issue with merchant undefined",
    (t) => t.keys.issue(any(undefined), "test"),
    "merchant",
    `keys.issue: argument "merchant" must be a non-empty string, got undefined`
  ],
  ["keys.issue with merchant an object", (t) => t.keys.issue(any({ id: "mch_demo" }), "test"), "merchant", "got an object"],
  [
    "keys.issue with environment prod",
    (t) => t.keys.issue("mch_demo", any("prod")),
    "environment",
    `keys.issue: argument "environment" must be "test" or "live", got "prod"`
  ],
  [
    "keys.rotate with publicKey 42",
    (t) => t.keys.rotate(any(42)),
    "publicKey",
    `keys.rotate: argument "publicKey" must be a public key (pk_test_… or pk_live_…), got 42`
  ],
  ["keys.rotate with a secret key", (t) => t.keys.rotate("sk_test_abc"), "publicKey", `got "sk_test_abc"`],
  ["keys.revoke with publicKey undefined", (t) => t.keys.revoke(any(undefined)), "publicKey", `keys.revoke: argument "publicKey"`],
  ["keys.revoke with publicKey an object", (t) => t.keys.revoke(any({ public_key: "pk_test_x" })), "publicKey", "got an object"],
  // Route health.
  [
    "routes.setAvailable with available \"no\"",
    (t) => t.routes.setAvailable("rt_demo_promptpay", any("no")),
    "available",
    `routes.setAvailable: argument "available" must be true or false, got "no"`
  ],
  ["routes.setAvailable with available 0", (t) => t.routes.setAvailable("rt_demo_promptpay", any(0)), "available", "got 0"],
  ["routes.setAvailable with available undefined", (t) => t.routes.setAvailable("rt_demo_promptpay", any(undefined)), "available", "got undefined"],
  [
    "routes.setAvailable with routeId 1",
    (t) => t.routes.setAvailable(any(1), false),
    "routeId",
    `routes.setAvailable: argument "routeId" must be a non-empty string, got 1`
  ],
  [
    "routes.setProviderAvailable with provider null",
    (t) => t.routes.setProviderAvailable(any(null), true),
    "provider",
    `routes.setProviderAvailable: argument "provider"`
  ],
  ["routes.setProviderAvailable with available \"false\"", (t) => t.routes.setProviderAvailable("simulator", any("false")), "available", `got "false"`]
]

/** Bad `createTender` options: the option, its path as `param`, and the exact message. */
const options: ReadonlyArray<readonly [name: string, options: unknown, param: string | undefined, message: string]> = [
  ["no options", undefined, undefined, "createTender: options must be an object, got undefined"],
  ["options a string", "http://x", undefined, `createTender: options must be an object, got "http://x"`],
  ["no publicUrl", { checkoutSecret: "test-secret-123" }, "publicUrl", `createTender: option "publicUrl" is required, got undefined`],
  [
    "publicUrl not a URL",
    { publicUrl: "payments", checkoutSecret: "test-secret-123" },
    "publicUrl",
    `createTender: option "publicUrl" must be an absolute http or https URL, got "payments"`
  ],
  [
    "publicUrl a number",
    { publicUrl: 80, checkoutSecret: "test-secret-123" },
    "publicUrl",
    `createTender: option "publicUrl" must be an absolute http or https URL, got 80`
  ],
  [
    "publicUrl ftp",
    { publicUrl: "ftp://x.test/", checkoutSecret: "test-secret-123" },
    "publicUrl",
    `createTender: option "publicUrl" must be an absolute http or https URL, got "ftp://x.test/"`
  ],
  ["no checkoutSecret", { publicUrl: base }, "checkoutSecret", `createTender: option "checkoutSecret" is required, got undefined`],
  [
    "checkoutSecret short (its text never shown)",
    { publicUrl: base, checkoutSecret: "hunter2" },
    "checkoutSecret",
    `createTender: option "checkoutSecret" must be a string of at least 8 characters, got a string of 7 characters`
  ],
  [
    "workers.concurrency -1",
    { workers: { concurrency: -1 } },
    "workers.concurrency",
    `createTender: option "workers.concurrency" must be a positive integer, got -1`
  ],
  [
    "workers.concurrency 0",
    { workers: { concurrency: 0 } },
    "workers.concurrency",
    `createTender: option "workers.concurrency" must be a positive integer, got 0`
  ],
  [
    "workers.concurrency 2.5",
    { workers: { concurrency: 2.5 } },
    "workers.concurrency",
    `createTender: option "workers.concurrency" must be a positive integer, got 2.5`
  ],
  [
    "workers.pollMillis Infinity",
    { workers: { pollMillis: Infinity } },
    "workers.pollMillis",
    `createTender: option "workers.pollMillis" must be a whole number of milliseconds from 1 to 86400000 (one day at most), got Infinity`
  ],
  [
    "workers.leaseMillis a string",
    { workers: { leaseMillis: "60s" } },
    "workers.leaseMillis",
    `createTender: option "workers.leaseMillis" must be a whole number of milliseconds from 1 to 86400000 (one day at most), got "60s"`
  ],
  ["workers true", { workers: true }, "workers", `createTender: option "workers" must be false or an object, got true`],
  [
    "storage a string",
    { storage: "memory" },
    "storage",
    `createTender: option "storage" must be one of { memory: true }, { postgres: pool } or { mongodb: client }, got "memory"`
  ],
  [
    "storage with two stores",
    { storage: { memory: true, postgres: {} } },
    "storage",
    `createTender: option "storage" must be one of { memory: true }, { postgres: pool } or { mongodb: client }, got an object`
  ],
  ["storage.memory false", { storage: { memory: false } }, "storage.memory", `createTender: option "storage.memory" must be true, got false`],
  [
    "storage.postgres a URL",
    { storage: { postgres: "postgres://localhost/test" } },
    "storage.postgres",
    `createTender: option "storage.postgres" must be a pg.Pool (connect, query, on and end), got "postgres://localhost/test"`
  ],
  [
    "storage.mongodb an object",
    { storage: { mongodb: {} } },
    "storage.mongodb",
    `createTender: option "storage.mongodb" must be a MongoClient (db and startSession), got an object`
  ],
  ["merchants a number", { merchants: 5 }, "merchants", `createTender: option "merchants" must be a seed object or the path of a seed JSON file, got 5`],
  [
    "merchants a missing file",
    { merchants: "/nonexistent/seed.json" },
    "merchants",
    `createTender: option "merchants": seed file /nonexistent/seed.json does not exist`
  ],
  ["providers not an array", { providers: {} }, "providers", `createTender: option "providers" must be an array of payment providers, got an object`],
  ["a provider without code", { providers: [{ methods: [] }] }, "providers.0.code", `createTender: option "providers.0.code" is required, got undefined`],
  [
    "a provider that is a function",
    { providers: [() => undefined] },
    "providers.0",
    `createTender: option "providers.0" must be a payment provider (an object: use defineProvider for a Promise adapter), got a function`
  ],
  ["simulator \"no\"", { simulator: "no" }, "simulator", `createTender: option "simulator" must be true, false or an object, got "no"`],
  [
    "simulator.timings.slowConfirmationMillis 0",
    { simulator: { timings: { slowConfirmationMillis: 0 } } },
    "simulator.timings.slowConfirmationMillis",
    `createTender: option "simulator.timings.slowConfirmationMillis" must be a whole number of milliseconds from 1 to 86400000 (one day at most), got 0`
  ],
  [
    "simulator.notificationSecret empty",
    { simulator: { notificationSecret: "" } },
    "simulator.notificationSecret",
    `createTender: option "simulator.notificationSecret" must be a non-empty string, got ""`
  ],
  ["migrate 1", { migrate: 1 }, "migrate", `createTender: option "migrate" must be true or false, got 1`],
  [
    "logger a function",
    { logger: () => undefined },
    "logger",
    `createTender: option "logger" must be an object with info, warn and error methods (pino, console), got a function`
  ],
  [
    "logger without warn",
    { logger: { info: () => undefined, error: () => undefined } },
    "logger.warn",
    `createTender: option "logger.warn" is required, got undefined`
  ],
  [
    "webhooks.timeoutMillis -5",
    { webhooks: { timeoutMillis: -5 } },
    "webhooks.timeoutMillis",
    `createTender: option "webhooks.timeoutMillis" must be a whole number of milliseconds from 1 to 600000 (ten minutes at most), got -5`
  ],
  [
    "webhooks.allowPrivateUrls \"yes\"",
    { webhooks: { allowPrivateUrls: "yes" } },
    "webhooks.allowPrivateUrls",
    `createTender: option "webhooks.allowPrivateUrls" must be true or false, got "yes"`
  ],
  [
    "webhooks.encryptionKey a number",
    { webhooks: { encryptionKey: 42 } },
    "webhooks.encryptionKey",
    `createTender: option "webhooks.encryptionKey" must be a non-empty string, got 42`
  ],
  [
    "routeHealth.failureThreshold 0",
    { routeHealth: { failureThreshold: 0 } },
    "routeHealth.failureThreshold",
    `createTender: option "routeHealth.failureThreshold" must be a positive integer, got 0`
  ],
  [
    "routeHealth.cooldownMillis a string",
    { routeHealth: { cooldownMillis: "5s" } },
    "routeHealth.cooldownMillis",
    `createTender: option "routeHealth.cooldownMillis" must be a whole number of milliseconds from 1 to 86400000 (one day at most), got "5s"`
  ]
]

/** A stand-in with a pg.Pool's methods: the options below are refused before it is ever used. */
const pool = { connect: () => undefined, query: () => undefined, on: () => undefined, end: () => undefined }

/** Keys Tender does not know, at every level: refused with their path and the nearest known name. */
const unknownOptions: ReadonlyArray<readonly [options: Record<string, unknown>, param: string, message: string]> = [
  [{ storge: { postgres: pool } }, "storge", `createTender: unknown option "storge"; did you mean "storage"?`],
  [{ migrte: false }, "migrte", `createTender: unknown option "migrte"; did you mean "migrate"?`],
  [{ simulater: false }, "simulater", `createTender: unknown option "simulater"; did you mean "simulator"?`],
  [{ merchant: "./seed.json" }, "merchant", `createTender: unknown option "merchant"; did you mean "merchants"?`],
  [{ provider: [] }, "provider", `createTender: unknown option "provider"; did you mean "providers"?`],
  [{ workers: { concurency: 4 } }, "workers.concurency", `createTender: unknown option "workers.concurency"; did you mean "workers.concurrency"?`],
  [{ storage: { postgress: pool } }, "storage.postgress", `createTender: unknown option "storage.postgress"; did you mean "storage.postgres"?`],
  [
    { storage: { postgres: pool, tablePrefx: "shop_" } },
    "storage.tablePrefx",
    `createTender: unknown option "storage.tablePrefx"; did you mean "storage.tablePrefix"?`
  ],
  [
    { storage: { postgres: pool, database: "shop" } },
    "storage.database",
    `createTender: unknown option "storage.database"; the known names are "storage.postgres", "storage.tablePrefix", "storage.statementTimeoutMs", "storage.preparedStatements"`
  ],
  [
    { simulator: { timings: { shortExpiry: 5 } } },
    "simulator.timings.shortExpiry",
    `createTender: unknown option "simulator.timings.shortExpiry"; did you mean "simulator.timings.shortExpiryMillis"?`
  ],
  [{ webhooks: { timeoutMs: 5 } }, "webhooks.timeoutMs", `createTender: unknown option "webhooks.timeoutMs"; did you mean "webhooks.timeoutMillis"?`],
  [{ routeHealth: { cooldown: 5 } }, "routeHealth.cooldown", `createTender: unknown option "routeHealth.cooldown"; did you mean "routeHealth.cooldownMillis"?`],
  [
    { zzz: 1 },
    "zzz",
    `createTender: unknown option "zzz"; the known names are "publicUrl", "checkoutSecret", "merchants", "providers", "logger", "migrate", "webhooks", "routeHealth", "maxConcurrentUploads", "providerAccountKeys", "storage", "simulator", "workers"`
  ]
]

/** The rejection of `promise`: anything but a TenderError fails the test with what it was. */
const rejectionOf = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    assert.isTrue(isTenderError(error), `not a TenderError: ${String(error)}`)
    return error as import("../src/index.js").TenderError
  }
  return assert.fail("expected a rejection")
}

describe("Promise API: every argument is decoded", () => {
  it("server: bad calls of every method reject with validation_failed naming the argument and the value", async () => {
    for (const [name, call, param, says] of calls) {
      const error = await rejectionOf(call(tender))
      assert.deepStrictEqual([error.code, error.status, error.param], ["validation_failed", 400, param], `${name}: ${error.message}`)
      assert.include(error.message, says, name)
    }
  })

  it("server: a bad call runs nothing: no payment is created, the route stays in service", async () => {
    const before = (await tender.paymentIntents.list({ limit: 100 }, demo)).data.length
    await rejectionOf(tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: any({ a: 1 }) }))
    await rejectionOf(tender.paymentIntents.create(promptpay, { ...demo, idempotencyKey: any({ b: 2 }) }))
    assert.strictEqual((await tender.paymentIntents.list({ limit: 100 }, demo)).data.length, before)
    await rejectionOf(tender.routes.setAvailable("rt_demo_promptpay", any("no")))
    assert.strictEqual((await tender.paymentIntents.create(promptpay, demo)).object, "payment_intent")
  })
})

describe("createTender: every option is decoded", () => {
  it("server: a key Tender does not know is refused at any depth, naming its path and the nearest known name", async () => {
    for (const [given, param, message] of unknownOptions) {
      const error = await rejectionOf(createTender({ publicUrl: base, checkoutSecret: "test-secret-123", ...given } as TenderOptions))
      assert.deepStrictEqual([error.code, error.status, error.param, error.message], ["validation_failed", 400, param, message])
    }
  })

  it("server: a logger's or an adapter's own keys are theirs, not options: a pino-like logger with more methods is taken", async () => {
    const noop = () => undefined
    const own = await createTender({
      publicUrl: base,
      checkoutSecret: "test-secret-123",
      workers: false,
      logger: { info: noop, warn: noop, error: noop, fatal: noop, child: noop } as never
    })
    await own.close()
  })

  it("server: bad options reject with validation_failed: createTender: option \"<path>\" <problem>, got <value>", async () => {
    for (const [name, given, param, message] of options) {
      const input = typeof given === "object" && given !== null && !("publicUrl" in given) && !("checkoutSecret" in given)
        ? { publicUrl: base, checkoutSecret: "test-secret-123", ...given }
        : given
      const error = await rejectionOf(createTender(input as TenderOptions))
      assert.deepStrictEqual([error.code, error.status, error.param], ["validation_failed", 400, param], `${name}: ${error.message}`)
      assert.isTrue(error.message.startsWith(message), `${name}: ${error.message}`)
      assert.notInclude(error.message, "hunter2", name)
    }
  })
})
