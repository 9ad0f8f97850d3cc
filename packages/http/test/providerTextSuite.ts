/**
 * A provider's text of any kind (a decline's failure message holding U+0000 or half a UTF-16
 * pair) kept alike on every store, written once and run on the in-memory store
 * (ProviderText.test.ts) and PostgreSQL (packages/postgres/test/ProviderText.test.ts), where such
 * a message reaching a statement was a 500 (SQLSTATE 22021) while memory kept it. Not a test file
 * itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { Provider, Simulator } from "@tender/core"
import { promptpay } from "@tender/repo-test-support"
import { Effect } from "effect"
import fc from "fast-check"
import { weirdString } from "./fuzz/generators.js"
import { type StoreLayer, storeTenders } from "./storeTenders.js"

/** What every store keeps of `text`: each NUL and each unpaired surrogate one U+FFFD, all else as sent. */
const kept = (text: string) => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const high = c >= 0xd800 && c <= 0xdbff
    const next = text.charCodeAt(i + 1)
    if (high && next >= 0xdc00 && next <= 0xdfff) {
      out += text.slice(i, i + 2)
      i++
    } else out += c === 0 || high || (c >= 0xdc00 && c <= 0xdfff) ? "\ufffd" : text[i]
  }
  return out
}

export const providerTextSuite = (name: string, storage: () => StoreLayer) => {
  // The simulator, declining every create with the message the property sets.
  const said = { message: "" }
  const sim = Simulator.make()
  const declining: Provider.PaymentProvider = {
    ...sim,
    createPayment: () =>
      Effect.sync(() => ({ _tag: "Failed", providerPaymentId: null, failureCode: "payment_declined", failureMessage: said.message }) as const)
  }
  const tender = storeTenders(storage, { providers: [declining] })

  describe(`a provider's text as every store keeps it: ${name}`, () => {
    it("47.4 D1 a decline's failure_message of any text -> 201 failed, the message kept without NUL or unpaired surrogates, alike on every store, never a 500", async () => {
      const { send } = await tender()
      await fc.assert(
        fc.asyncProperty(fc.oneof(weirdString, fc.constant("declined\u0000 by\ud800 bank")), async (message) => {
          said.message = message
          const created = await send("POST", "/payment_intents", promptpay)
          assert.strictEqual(created.status, 201, created.text)
          const intent = created.json as { id: string; status: string; failure_message: string }
          assert.deepInclude(intent, { status: "failed", failure_message: kept(message) })
          const read = await send("GET", `/payment_intents/${intent.id}`)
          assert.strictEqual((read.json as { failure_message: string }).failure_message, kept(message))
        }),
        { numRuns: 25 }
      )
    })
  })
}
