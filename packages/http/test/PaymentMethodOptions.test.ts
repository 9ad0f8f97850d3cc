/**
 * 2.2's `payment_method_options` through the real HttpApi: the fields a method's payer family
 * declares are accepted (the Thai family's four, and a family only an adapter names), and a key
 * no route asks for or one of the `customer` fields is 400 in D1's error shape, nothing written.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator, Tender } from "@tender/core"
import { checkoutOptions, keys } from "../../core/test/fixtures.js"
import { bankTransfer, promptpay } from "../../core/test/paymentIntentHelpers.js"
import { pix, pixKey, pixSeed, pixy } from "../../core/test/pixy.js"
import { app, assertError, call, type Key } from "./harness.js"

describe("2.2 payment_method_options over HTTP", () => {
  const h = app()
  const pixShop = pixy()
  const hPix = app(Tender.layerMemory({ seed: pixSeed, hostedCheckout: checkoutOptions, providers: [Simulator.make(), pixShop.provider] }))

  const nothingWritten = async (handler: typeof h, key: Key) => {
    const list = await call(handler, "GET", "/payment_intents", { key })
    assert.deepStrictEqual(list.json.data, [])
  }

  it("2.2 the Thai payer family's fields (bank, account_name, account_number, name_th) are accepted", async () => {
    const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: bankTransfer })
    assert.strictEqual(res.status, 201, res.text)
    assert.strictEqual(res.json.payment_method, "th_bank_transfer")
  })

  it("2.2 a field of a payer family only an adapter declares (a Pix tax id) is accepted and reaches the provider", async () => {
    const res = await call(hPix, "POST", "/payment_intents", { key: pixKey, body: { ...pix, payment_method_options: { tax_id: "12345678901" } } })
    assert.strictEqual(res.status, 201, res.text)
    assert.deepStrictEqual(pixShop.calls.at(-1)?.payer, { family: "br_pix_payer", fields: { customer_name: "João Silva", tax_id: "12345678901" } })
  })

  it("2.2 7 a payment_method_options key no route asks for -> 400 validation_failed at its param path, nothing written", async () => {
    const thai = await call(h, "POST", "/payment_intents", { key: keys.otherTest, body: { ...promptpay, payment_method_options: { tax_id: "12345678901" } } })
    assertError(thai, 400, "validation_failed", "payment_method_options.tax_id")
    await nothingWritten(h, keys.otherTest)
    const calls = pixShop.calls.length
    const foreign = await call(hPix, "POST", "/payment_intents", {
      key: pixKey,
      body: { ...pix, payment_method_options: { tax_id: "12345678901", upi_vpa: "x@bank" } }
    })
    assertError(foreign, 400, "validation_failed", "payment_method_options.upi_vpa")
    assert.strictEqual(pixShop.calls.length, calls, "a refused create reached the provider")
  })

  it("2.2 7 customer_name or customer_phone inside payment_method_options -> 400 validation_failed (they are customer fields), nothing written", async () => {
    for (const [field, value] of [["customer_name", "Somchai Jaidee"], ["customer_phone", "+66812345678"]] as const) {
      const res = await call(h, "POST", "/payment_intents", {
        key: keys.merchantOnly,
        body: { ...bankTransfer, payment_method_options: { ...bankTransfer["payment_method_options"] as object, [field]: value } }
      })
      assertError(res, 400, "validation_failed", `payment_method_options.${field}`)
    }
    await nothingWritten(h, keys.merchantOnly)
  })
})
