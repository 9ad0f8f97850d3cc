/**
 * The README's sample answers have the fields a real answer has: the create's JSON and the
 * list's envelope, compared with what Tender answers the README's own request. A field added to
 * an answer and not to the README fails here, naming it.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createTender, type TenderInstance } from "../src/index.js"
import { quietOptions } from "./fixtures.js"

const readme = readFileSync(resolve(import.meta.dirname, "../../../README.md"), "utf8")
const scope = { merchant: "mch_demo", environment: "test" } as const

/** The request of the README's create: the `-d` body of its first curl that has one. */
const createBody = JSON.parse(/-d '(\{"amount"[^']*\})'/.exec(readme)![1]!) as Record<string, unknown>
/** The JSON answer shown right after that curl. */
const createAnswer = JSON.parse(/http:\/\/127\.0\.0\.1:3000\/payment_intents\n```\n\n```json\n(.*)\n```/.exec(readme)![1]!) as Record<string, unknown>

const keysOf = (o: unknown) => Object.keys(o as object).sort()

let tender: TenderInstance
beforeAll(async () => {
  tender = await createTender({ ...quietOptions, publicUrl: "http://127.0.0.1:3000" })
})
afterAll(() => tender.close())

describe("README: its sample answers", () => {
  it("2.1 the README's payment intent has every field, and only the fields, of the answer to its create", async () => {
    const real = await tender.paymentIntents.create(createBody as never, scope)
    assert.deepStrictEqual(keysOf(createAnswer), keysOf(real))
    assert.deepStrictEqual(keysOf(createAnswer["next_action"]), keysOf(real.next_action))
    assert.deepStrictEqual([createAnswer["status"], createAnswer["amount_refunded"]], [real.status, real.amount_refunded])
  })

  it("D6 the README's list envelope has the fields of a real list", async () => {
    const shown = /The list answers `(\{[^`]*\})`/.exec(readme)![1]!.replace("[…]", "[]")
    const real = await tender.paymentIntents.list({ limit: 10 }, scope)
    assert.deepStrictEqual(keysOf(JSON.parse(shown)), keysOf(real))
  })
})
