/**
 * Provider contract: environments (D9, D11). An adapter serves only the environments its host
 * configured: its methods declare only those, a payment in another is refused before the
 * provider sees it, and a key of another environment never routes to it.
 */
import { Effect, Either } from "effect"
import { assert, it } from "vitest"
import { paymentsAt } from "./checks.js"
import type { World } from "./world.js"

const others = (w: World) => (["test", "live"] as const).filter((e) => !w.served.includes(e))
const servesBoth = "the adapter is configured for both environments: none is left to refuse"

/** @internal */
export const environmentCases = (get: () => World, timeout: number) => {
  it("D11 environments: every method declares only the environments the adapter was configured for", () => {
    const w = get()
    for (const method of w.provider.methods) {
      for (const environment of method.environments) {
        assert.include(w.served, environment, `${method.method} declares ${environment}, which the adapter was not configured for`)
      }
    }
  })

  it("D11 environments: a payment in an environment the adapter is not configured for is refused, and the provider never holds it", async (ctx) => {
    const w = get()
    ctx.skip(others(w).length === 0, servesBoth)
    for (const environment of others(w)) {
      const request = w.requestFor(w.freshIntentId(), environment)
      const result = await w.run(Effect.either(w.provider.createPayment(request)))
      assert.isTrue(
        Either.isLeft(result) && result.left._tag === "ProviderUnavailable",
        `the adapter's createPayment served a ${environment} payment, an environment it was not configured for (it must refuse it as ProviderUnavailable): ${
          JSON.stringify(result)
        }`
      )
      const held = await paymentsAt(w, request.paymentIntentId)
      if (held !== undefined) assert.strictEqual(held, 0, `payments the provider holds for a ${environment} create`)
    }
  }, timeout)

  it("D11 environments: a key of an environment the adapter does not serve never reaches it", async (ctx) => {
    const w = get()
    ctx.skip(others(w).length === 0, servesBoth)
    for (const environment of others(w)) {
      const asked = w.recorder.creates.length
      const answer = await w.run(w.create("succeeded", environment))
      assert.isAtLeast(
        answer.status,
        400,
        `a ${environment} key created a payment through an adapter configured for ${w.served.join(" and ")} only: ${JSON.stringify(answer.body)}`
      )
      assert.isBelow(answer.status, 500, `a ${environment} key's create failed with a fault, not a refusal: ${JSON.stringify(answer.body)}`)
      assert.strictEqual(w.recorder.creates.length, asked, `Tender asked the adapter with a ${environment} key`)
    }
  }, timeout)
}
