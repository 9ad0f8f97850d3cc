/**
 * `Table.construct` builds a record as the schema's own `make(props, true)` does (constructor
 * defaults filled, an explicit undefined taking its default too), for every stored record schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { Asset, PaymentIntentRecord, PayoutIntent, Refund, Table, Task, TopupIntent, WebhookDelivery, WebhookEndpoint } from "../src/index.js"

const schemas = {
  PaymentIntentRecord: PaymentIntentRecord.PaymentIntentRecord,
  TaskRecord: Task.TaskRecord,
  RefundRecord: Refund.RefundRecord,
  PayoutIntentRecord: PayoutIntent.PayoutIntentRecord,
  TopupIntentRecord: TopupIntent.TopupIntentRecord,
  AssetRecord: Asset.AssetRecord,
  AttemptRecord: WebhookDelivery.AttemptRecord,
  WebhookEndpointRecord: WebhookEndpoint.WebhookEndpointRecord
} as unknown as Record<string, Schema.Struct<Schema.Struct.Fields>>

describe("Table.construct", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`${name}: the same record as make(props, true), whichever fields are given, left out or undefined`, () => {
      const keys = Reflect.ownKeys(schema.fields).map(String)
      fc.assert(
        fc.property(fc.array(fc.constantFrom("absent", "undefined", "value", "null"), { minLength: keys.length, maxLength: keys.length }), (choices) => {
          const props: Record<string, unknown> = {}
          keys.forEach((key, i) => {
            if (choices[i] === "undefined") props[key] = undefined
            else if (choices[i] === "value") props[key] = `v-${key}`
            else if (choices[i] === "null") props[key] = null
          })
          assert.deepStrictEqual(Table.construct(schema, props as never), schema.make(props as never, true))
        }),
        { numRuns: 200 }
      )
    })
  }
})
