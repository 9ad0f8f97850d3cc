/**
 * return_url with a control character: `new URL` strips a tab, CR or LF
 * silently, so such a URL would parse, be stored as sent and be handed to the payer's
 * browser as something else. The raw string is refused: 400 validation_failed, return_url.
 */
import { assert, describe, it } from "@effect/vitest"
import { keys } from "../../core/test/fixtures.js"
import { app, assertError, call } from "./harness.js"

const hosted = { amount: "150000", currency: "THB", country: "TH", customer: {} }

/** C0 (U+0000 to U+001F), DEL (U+007F) and C1 (U+0080 to U+009F). */
const controls = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)
].map((c) => String.fromCharCode(c))

describe("return_url control characters (D1)", () => {
  const h = app()

  it("4.1.4 a return_url with any C0, DEL or C1 control character, anywhere -> 400 validation_failed param return_url", async () => {
    assert.lengthOf(controls, 65)
    for (const c of controls) {
      for (
        const returnUrl of [`https://shop.example/do${c}ne`, `https://shop.example/done?order=1${c}`, `${c}https://shop.example/`, `https://shop.exa${c}mple/`]
      ) {
        const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...hosted, return_url: returnUrl } })
        const error = assertError(res, 400, "validation_failed", "return_url")
        assert.include(error.message, "return_url must be an absolute http or https URL", JSON.stringify(returnUrl))
      }
    }
    // Nothing was written.
    const list = await call(h, "GET", "/payment_intents", { key: keys.demoTest })
    assert.deepStrictEqual(list.json.data, [])
  }, 60_000) // 260 requests: seconds on a loaded machine

  it("4.1.4 a tab, LF or CR that new URL would strip is refused, not stored as a different URL", async () => {
    for (const c of ["\t", "\n", "\r", "\r\n"]) {
      const returnUrl = `https://shop.example/done${c}?order=1`
      assert.strictEqual(new URL(returnUrl).href, "https://shop.example/done?order=1")
      assertError(
        await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...hosted, return_url: returnUrl } }),
        400,
        "validation_failed",
        "return_url"
      )
    }
  })

  it("4.1.4 printable non-ASCII (U+00A0 and up, Thai) stays accepted as given", async () => {
    for (const returnUrl of ["https://shop.example/คำสั่งซื้อ/42?note=ขอบคุณ", "https://shop.example/a\u00a0b", "https://shop.example/é"]) {
      const res = await call(h, "POST", "/payment_intents", { key: keys.demoTest, body: { ...hosted, return_url: returnUrl } })
      assert.strictEqual(res.status, 201, res.text)
    }
  })
})
