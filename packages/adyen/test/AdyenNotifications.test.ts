/**
 * Adyen's batched notifications through Tender's own receive (`ProviderNotifications.receive`,
 * the call the D11 route makes) on the in-memory store: every item a notice of its own, stored
 * once per Adyen pspReference and event code, whatever repeats.
 */
import { ProviderNotification, ProviderNotifications, Storage, Task, Tender } from "@tender/core"
import type { ProviderNotificationRequest } from "@tender/core/ProviderNotification"
import { Effect, Either, Logger, Option } from "effect"
import { expect, it } from "vitest"
import { code } from "../src/AdyenProvider.js"
import { paymentRequest, useHarness } from "./harness.js"

const h = useHarness()

const tender = () =>
  Tender.layerMemory({ seed: { merchants: [] }, hostedCheckout: { baseUrl: "https://pay.example.test", secret: "adyen-test-secret" }, providers: [h.provider] })

const stored = (eventId: string) => Effect.flatMap(Storage.Storage, (s) => s.find(ProviderNotification.table, ProviderNotification.recordId(code, eventId)))

const tasksOf = (eventId: string) =>
  Effect.flatMap(
    Storage.Storage,
    (s) =>
      s.list(Task.table, {
        merchantId: ProviderNotification.noMerchant,
        environment: "test",
        where: { resourceId: ProviderNotification.recordId(code, eventId) },
        limit: 100
      })
  )

it("D11 one Adyen request with several items stores each item once (pspReference and event code), a repeated item and a repeated request store nothing again", async () => {
  const a = await Effect.runPromise(h.provider.createPayment(paymentRequest()))
  const b = await Effect.runPromise(h.provider.createPayment(paymentRequest()))
  if (a._tag !== "Action" || b._tag !== "Action") throw new Error("expected actions")
  const itemA = h.standIn.paymentItem(a.providerPaymentId, "AUTHORISATION", true)
  await h.standIn.notify([
    itemA,
    h.standIn.paymentItem(b.providerPaymentId, "AUTHORISATION", true),
    itemA,
    h.standIn.paymentItem(a.providerPaymentId, "CAPTURE", true)
  ])
  const request = h.received[0]!
  const program = Effect.gen(function*() {
    const first = yield* ProviderNotifications.receive(code, request)
    const again = yield* ProviderNotifications.receive(code, request)
    const ids = [`${a.providerPaymentId}:AUTHORISATION`, `${b.providerPaymentId}:AUTHORISATION`, `${a.providerPaymentId}:CAPTURE`]
    const records = yield* Effect.forEach(ids, (id) => Effect.map(stored(id), Option.getOrThrow))
    const tasks = yield* Effect.forEach(ids, (id) => Effect.map(tasksOf(id), (t) => t.length))
    return { first, again, records, tasks }
  })
  const { first, again, records, tasks } = await Effect.runPromise(
    program.pipe(Effect.provide(tender()), Effect.provide(Logger.replace(Logger.defaultLogger, Logger.none)))
  )
  expect(first).toEqual({ status: 200, contentType: "text/plain", body: "[accepted]" })
  expect(again).toEqual(first)
  expect(records.map((r) => [r.notice._tag, r.status])).toEqual([["PaymentSucceeded", "received"], ["PaymentSucceeded", "received"], ["Ignored", "ignored"]])
  // One apply task per stored notice, none for the ignored one.
  expect(tasks).toEqual([1, 1, 0])
})

it("D11 an Adyen request with one forged item of two is refused whole: nothing of it is stored", async () => {
  const a = await Effect.runPromise(h.provider.createPayment(paymentRequest()))
  if (a._tag !== "Action") throw new Error("expected an action")
  await h.standIn.notify([h.standIn.paymentItem(a.providerPaymentId, "AUTHORISATION", true), h.standIn.paymentItem(a.providerPaymentId, "CAPTURE", true)])
  const json = JSON.parse(Buffer.from(h.received[0]!.body).toString())
  json.notificationItems[1].NotificationRequestItem.success = "false"
  const forged: ProviderNotificationRequest = { headers: h.received[0]!.headers, body: new TextEncoder().encode(JSON.stringify(json)) }
  const program = Effect.gen(function*() {
    const result = yield* Effect.either(ProviderNotifications.receive(code, forged))
    return { result, first: yield* stored(`${a.providerPaymentId}:AUTHORISATION`) }
  })
  const { result, first } = await Effect.runPromise(program.pipe(Effect.provide(tender())))
  expect(Either.isLeft(result) && result.left._tag).toBe("NotificationUnverified")
  expect(Option.isNone(first)).toBe(true)
})
