import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Effect, Either, ParseResult, Schema } from "effect"
import { Fx, Money, PaymentIntent } from "../src/index.js"

const decode = (text: string) => Schema.decodeUnknownEither(PaymentIntent.CreateParams)(JSON.parse(text), { errors: "all", onExcessProperty: "error" })

const base = "\"amount\":\"150000\",\"currency\":\"THB\",\"country\":\"TH\""

describe("reserved key names in request bodies", () => {
  it("D1 a metadata key named __proto__ is refused with a 400 naming metadata.__proto__, never acknowledged and dropped", () => {
    const result = decode(`{${base},"customer":{},"metadata":{"a":"b","__proto__":"x"}}`)
    assert.isTrue(Either.isLeft(result))
    const issues = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)
    // Besides the echo of the optional field's `undefined` member, which the HTTP binding drops.
    const real = issues.filter((i) => !i.message.startsWith("Expected undefined"))
    assert.deepStrictEqual(real.map((i) => [i.path.join("."), i.message]), [["metadata.__proto__", "is a reserved key name; use another key"]])
  })

  it("D1 __proto__ in a closed object (the body, customer, payment_method_options) is an unknown field: 400", () => {
    for (
      const body of [
        `{${base},"customer":{},"__proto__":{"x":1}}`,
        `{${base},"customer":{"__proto__":"x"}}`,
        `{${base},"customer":{},"payment_method":"th_bank_transfer","payment_method_options":{"__proto__":{"bank":"KBANK"}}}`
      ]
    ) {
      assert.isTrue(Either.isLeft(decode(body)), body)
    }
  })

  it("2.2 metadata keys named constructor and prototype are stored as sent", () => {
    const result = decode(`{${base},"customer":{},"metadata":{"constructor":"c","prototype":"p","toString":"t"}}`)
    assert.isTrue(Either.isRight(result))
    assert.deepStrictEqual((result as Either.Right<unknown, PaymentIntent.CreateParams>).right.metadata, {
      constructor: "c",
      prototype: "p",
      toString: "t"
    })
  })

  it("2.5 a source type or currency named after an Object member finds no table entry: no fee, no digits", async () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const fee = await Effect.runPromise(
        Effect.flatMap(Fx.TopupFees, (fees) => fees.fee({ sourceType: name, provider: "p", sourceCurrency: "THB", environment: "test" })).pipe(
          Effect.provide(Fx.layerStaticFees())
        )
      )
      assert.strictEqual(fee.fixed, 0n, name)
      assert.isTrue(BigDecimal.equals(fee.rate, BigDecimal.fromBigInt(0n)), name)
      assert.isUndefined(Money.digitsOf(name), name)
    }
  })
})
