/**
 * The simulator's online-banking page (test environment only, D9): the bank's approve/decline
 * form for the simulator's payment, and back to the hosted page after it.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HostedCheckout, HostedPayment, Ids, PaymentIntent, Provider, SimulatorPayer, Storage } from "@tender/core"
import { Clock, Effect, Option } from "effect"
import { respond } from "../Html.js"
import { negotiate } from "../Messages.js"
import * as Pages from "../Pages.js"
import { browserNonce, checkForm, queryOf, refused } from "./link.js"
import { formBody } from "./payerForm.js"
import { guarded, originOf, seeOther } from "./views.js"

/** The intent the simulated bank page is about: test environment, the simulator's payment, by its id. */
const bankIntent = (payment: string, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const intentId = queryOf(request).get("payment_intent") ?? ""
    if (!Ids.isWellFormed(Ids.prefixes.paymentIntent, intentId)) return yield* Effect.fail(refused("notFound", 404))
    const found = yield* Effect.flatMap(Storage.Storage, (s) => s.find(PaymentIntent.table, intentId))
    if (
      Option.isNone(found) || found.value.environment !== "test" || found.value.providerPaymentId !== payment
    ) return yield* Effect.fail(refused("notFound", 404))
    return found.value
  })

const bankLabel = (intent: PaymentIntent.PaymentIntentRecord, code: string) =>
  Effect.map(Provider.ProviderRegistry, (registry) => {
    const banks = registry.get(intent.providerCode ?? "")?.methods.flatMap((m) => m.banks) ?? []
    return banks.find((b) => b.providerCode === code)?.label ?? "Test bank"
  })

/** After the bank: back to the hosted page (a fresh link: the payer's may be in another tab), or a plain notice. */
const afterBank = (intent: PaymentIntent.PaymentIntentRecord) =>
  Effect.gen(function*() {
    const hosted = yield* HostedCheckout.HostedCheckout
    if (intent.checkoutMode !== "hosted") return undefined
    return hosted.urlFor(intent.id, yield* Clock.currentTimeMillis).url
  })

export const bank = (bankCode: string, payment: string, request: HttpServerRequest.HttpServerRequest) => {
  const lang = negotiate(queryOf(request).get("lang"), request.headers["accept-language"])
  return guarded(
    lang,
    Effect.gen(function*() {
      const intent = yield* bankIntent(payment, request)
      const hosted = yield* HostedCheckout.HostedCheckout
      const actions = SimulatorPayer.actionsFor(intent).filter((a) => a === "bank_approved" || a === "bank_declined")
      if (actions.length === 0) {
        const back = yield* afterBank(intent)
        if (back !== undefined) return seeOther(back)
        return yield* Effect.fail(refused("notFound", 404))
      }
      const { headers, nonce } = browserNonce(request, hosted.baseUrl)
      const principal = yield* HostedPayment.principalOf(intent)
      const action = `${hosted.baseUrl}/simulator/online_banking/${encodeURIComponent(bankCode)}/${encodeURIComponent(payment)}?` +
        new URLSearchParams({ payment_intent: intent.id, lang, token: hosted.formToken(`bank:${intent.id}`, 0, nonce) }).toString()
      const shown = Pages.bank(
        {
          lang,
          intent,
          merchantName: hosted.appearance.merchantName ?? principal.merchant.name,
          appearance: hosted.appearance,
          formTargets: originOf(intent.returnUrl)
        },
        yield* bankLabel(intent, bankCode),
        action,
        actions
      )
      return respond({ ...shown, headers })
    })
  )
}

export const bankAnswer = (payment: string, request: HttpServerRequest.HttpServerRequest) => {
  const lang = negotiate(queryOf(request).get("lang"), request.headers["accept-language"])
  return guarded(
    lang,
    Effect.gen(function*() {
      const intent = yield* bankIntent(payment, request)
      yield* checkForm({ id: intent.id, expires: 0, signature: "", query: queryOf(request), lang }, request, `bank:${intent.id}`, 0)
      const action = (yield* formBody(request)).get("action")
      if (action === "bank_approved" || action === "bank_declined") yield* SimulatorPayer.act(intent, action)
      const back = yield* afterBank(intent)
      if (back !== undefined) return seeOther(back)
      return seeOther(request.url)
    })
  )
}
