/**
 * What is Nest's own in the NestJS example (docs/embedding.md, "NestJS"): the `TENDER` token in a
 * controller, `TenderErrorFilter` turning the Promise API's rejections into their status and D1
 * body, the shutdown hook closing Tender before the app's pool ends, and the body-parser message
 * a host gets when it mounts Tender the way Nest mounts middleware.
 */
import { type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common"
import { NestFactory } from "@nestjs/core"
import { basic, demoKey, freePort, fundBalance, payout, testDatabaseUrl } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { createTender, type TenderInstance } from "@tender/server"
import { fileURLToPath } from "node:url"
import type pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createApp, makeApp } from "../src/app.js"
import { DatabaseModule, PG_POOL } from "../src/database.module.js"
import { TENDER, TenderModule } from "../src/tender.module.js"

const merchants = fileURLToPath(new URL("../seed.json", import.meta.url))
const { pool, fresh } = prefixedPool(3)
const quiet = { info() {}, warn() {}, error() {} }

describe("examples/nestjs: TenderErrorFilter and the TENDER token", () => {
  let base = ""
  let close: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    const { app } = await makeApp({
      storage: { postgres: pool, tablePrefix: fresh() },
      publicUrl: `${base}/payments`,
      checkoutSecret: "test-secret",
      merchants,
      logger: quiet
    }, { logger: false })
    await app.listen(port, "127.0.0.1")
    close = () => app.close()
  })
  afterAll(() => close())

  const backOffice = (path: string, method = "GET") => fetch(`${base}/back-office/test/merchants/mch_demo/payouts/${path}`, { method })

  it("D1 an unknown payout asked through the Promise API in a controller answers 404 resource_not_found with the D1 body, not Nest's 500", async () => {
    const res = await backOffice("pout_000000000000000000000000")
    assert.strictEqual(res.status, 404)
    const body = await res.json()
    assert.strictEqual(body.error.code, "resource_not_found")
    assert.isString(body.error.message)
    assert.match(body.error.request_id, /^req_/)
    assert.strictEqual(res.headers.get("request-id"), body.error.request_id)
  })

  it("D8 a payout approved through the controller answers 200 processing; approved again, 409 payout_not_approvable", async () => {
    await fundBalance(`${base}/payments`, demoKey)
    const created = await fetch(`${base}/payments/payout_intents`, {
      method: "POST",
      headers: { authorization: basic(demoKey), "content-type": "application/json" },
      body: JSON.stringify(payout(`po-${crypto.randomUUID()}`))
    })
    assert.strictEqual(created.status, 201)
    const { id } = await created.json()
    const approved = await backOffice(`${id}/approve`, "POST")
    assert.deepStrictEqual([approved.status, (await approved.json()).status], [200, "processing"])
    const again = await backOffice(`${id}/approve`, "POST")
    assert.deepStrictEqual([again.status, (await again.json()).error.code], [409, "payout_not_approvable"])
  })

  it("D1 a bad argument to the Promise API answers 400 validation_failed naming it", async () => {
    const res = await fetch(`${base}/back-office/prod/merchants/mch_demo/payouts/pout_000000000000000000000000`)
    assert.strictEqual(res.status, 400)
    const { error } = await res.json()
    assert.deepStrictEqual([error.code, error.param], ["validation_failed", "environment"])
  })

  it("errors that are not Tender's keep Nest's own answer", async () => {
    const res = await fetch(`${base}/back-office/nothing`)
    assert.strictEqual(res.status, 404)
    assert.strictEqual((await res.json()).statusCode, 404)
  })
})

describe("examples/nestjs: shutdown", () => {
  it("shutdown: app.close() runs TenderModule's onApplicationShutdown, which closes Tender before DatabaseModule ends the app's pool", async () => {
    const tablePrefix = fresh()
    const seen: Array<string> = []
    const app = await createApp(
      TenderModule.forRootAsync({
        imports: [DatabaseModule.forRoot({ connectionString: testDatabaseUrl, max: 2 })],
        inject: [PG_POOL],
        useFactory: (own: pg.Pool) => {
          const end = own.end.bind(own)
          // What Tender answers at the moment the pool is ended: it must be closed by then.
          own.end = (async () => {
            seen.push(await tender().merchants.retrieve("mch_demo").then(() => "tender open", () => "tender closed"))
            return end()
          }) as typeof own.end
          return { storage: { postgres: own, tablePrefix }, publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret", merchants, logger: quiet }
        }
      }),
      { logger: false }
    )
    const tender = () => app.get<TenderInstance>(TENDER)
    assert.strictEqual((await tender().merchants.retrieve("mch_demo")).id, "mch_demo")
    const own = app.get<pg.Pool>(PG_POOL)
    await app.close()
    assert.deepStrictEqual(seen, ["tender closed"])
    assert.isTrue(own.ended)
  })
})

describe("examples/nestjs: mounted the way Nest mounts middleware", () => {
  it("body parser: consumer.apply(tender.express()) behind Nest's own parser is refused with the message naming the NestJS fix, not answered with a misleading 400", async () => {
    const tender = await createTender({ publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret", merchants, logger: quiet })
    @Module({})
    class WrongModule implements NestModule {
      configure(consumer: MiddlewareConsumer) {
        consumer.apply(tender.express()).forRoutes("*path")
      }
    }
    const logged: Array<string> = []
    const collect = (message: unknown, ...rest: Array<unknown>) => void logged.push([message, ...rest].map(String).join(" "))
    const app = await NestFactory.create(WrongModule, { logger: { log() {}, warn() {}, error: collect, fatal: collect } })
    const port = await freePort()
    await app.listen(port, "127.0.0.1")
    try {
      const res = await fetch(`http://127.0.0.1:${port}/payments/payment_intents`, {
        method: "POST",
        headers: { authorization: basic(demoKey), "content-type": "application/json" },
        body: "{}"
      })
      assert.strictEqual(res.status, 500)
      const line = logged.find((l) => l.includes("a body parser read the request body before Tender"))
      assert.isDefined(line, logged.join("\n"))
      assert.include(
        line,
        "NestJS: NestFactory.create(AppModule, { bodyParser: false }), then app.use(tender.express()) in main.ts before app.useBodyParser(\"json\")"
      )
    } finally {
      await app.close()
      await tender.close()
    }
  })
})
