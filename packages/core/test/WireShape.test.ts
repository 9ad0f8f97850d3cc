/**
 * `WireShape`: one field list gives a resource's wire schema and its render from the record,
 * so the two cannot drift. D4 times are rendered from the record's epoch milliseconds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { PaymentIntent } from "../src/index.js"
import * as WireShape from "../src/resources/internal/wireShape.js"

interface Thing {
  readonly id: string
  readonly merchantReference: string | null
  readonly amountMinor: string
  readonly createdAt: number
  readonly updatedAt: number
}

const fields = WireShape.of<Thing, number>()
const thing = fields.make({
  object: WireShape.constant("thing"),
  id: Schema.String,
  merchant_reference: Schema.NullOr(Schema.String),
  doubled: fields.computed(Schema.String, (r, factor) => (BigInt(r.amountMinor) * BigInt(factor)).toString()),
  ...WireShape.times
})

describe("WireShape", () => {
  it("D4 a schema alone is the record's camelCase field; times render as D4 timestamps; the JSON keeps the list's order", () => {
    const rendered = thing.render({ id: "t_1", merchantReference: null, amountMinor: "21", createdAt: 0, updatedAt: 1_764_633_600_123 }, 2)
    assert.strictEqual(
      JSON.stringify(rendered),
      "{\"object\":\"thing\",\"id\":\"t_1\",\"merchant_reference\":null,\"doubled\":\"42\",\"created_at\":\"1970-01-01T00:00:00.000Z\",\"updated_at\":\"2025-12-02T00:00:00.123Z\"}"
    )
    assert.deepStrictEqual(Object.keys(thing.schema.fields), ["object", "id", "merchant_reference", "doubled", "created_at", "updated_at"])
    assert.isTrue(Schema.is(thing.schema)(rendered))
  })

  it("2.1 the create response's schema is the read shape's fields less processing_reason and receipt, in the same order", () => {
    assert.deepStrictEqual(
      Object.keys(PaymentIntent.PaymentIntentCreated.fields),
      Object.keys(PaymentIntent.PaymentIntent.fields).filter((k) => k !== "processing_reason" && k !== "receipt")
    )
  })
})
