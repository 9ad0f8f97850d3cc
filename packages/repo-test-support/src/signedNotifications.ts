/**
 * The property every provider adapter's notifications keep (D11, D1): any body signed with the
 * right secret is answered 2xx or 4xx, never 5xx, whatever its shape. It runs through
 * `ProviderNotifications.receive` (the call the D11 route makes) on the in-memory store, where a
 * 5xx is a defect (an adapter that threw, or gave notices the port refuses) or a storage failure;
 * the route answers `NotificationUnverified` and `NotificationUnstorable` with a 400.
 */
import { assert } from "@effect/vitest"
import { ProviderNotifications, Tender } from "@tender/core"
import type { PaymentProvider } from "@tender/core/Provider"
import { Cause, Exit, Layer, Logger, ManagedRuntime } from "effect"
import fc from "fast-check"

/** A value of any JSON type, with the strings people and attackers send (NUL included). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, "", "\u0000", "a\u0000b", "\ud800", "x".repeat(300), {}, [], "123"),
  fc.string(),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 })
)

/** `template` with each of its keys kept, dropped or given `anyValue` at random, at every level. */
export const mutated = (template: unknown): fc.Arbitrary<unknown> => {
  if (typeof template !== "object" || template === null || Array.isArray(template)) {
    return fc.oneof({ weight: 3, arbitrary: fc.constant(template) }, { weight: 1, arbitrary: anyValue })
  }
  const entries = Object.entries(template).map(([key, value]) =>
    fc.oneof(
      { weight: 4, arbitrary: mutated(value).map((v) => [key, v] as const) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: anyValue.map((v) => [key, v] as const) }
    )
  )
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(...entries).map((kept) => Object.fromEntries(kept.filter((e) => e !== undefined))) },
    { weight: 1, arbitrary: anyValue }
  )
}

/** Whether the failure of a receive is one the route answers with a 4xx. */
const answered4xx = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  return !Cause.isDie(cause) && failure._tag === "Some" &&
    ["NotificationUnverified", "NotificationUnstorable"].includes((failure.value as { _tag: string })._tag)
}

/**
 * For `numRuns` bodies of `bodies`, each signed by `sign` (the headers to send it with, or
 * undefined for a body the provider's own signer cannot sign), `provider` through Tender's receive
 * answers a notice stored or a 4xx: never a defect, never a storage failure. Returns how many were
 * stored and how many refused, so a caller can check both happened.
 */
export const signedBodiesAnswered = async (options: {
  readonly provider: PaymentProvider
  readonly bodies: fc.Arbitrary<string>
  readonly sign: (body: string) => Record<string, string> | undefined
  readonly numRuns?: number
}) => {
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    Tender.layerMemory({
      seed: { merchants: [] },
      hostedCheckout: { baseUrl: "https://pay.example.test", secret: "signed-bodies-secret" },
      providers: [options.provider]
    }),
    Logger.replace(Logger.defaultLogger, Logger.none)
  ))
  const tally = { stored: 0, refused: 0 }
  try {
    await fc.assert(
      fc.asyncProperty(options.bodies, async (body) => {
        const headers = options.sign(body)
        fc.pre(headers !== undefined)
        const exit = await runtime.runPromiseExit(
          ProviderNotifications.receive(options.provider.code, { headers: headers!, body: new TextEncoder().encode(body) })
        )
        if (Exit.isSuccess(exit)) {
          assert.isAtLeast(exit.value.status, 200)
          assert.isBelow(exit.value.status, 300)
          tally.stored++
        } else {
          assert.isTrue(answered4xx(exit.cause), `${body.slice(0, 300)} -> ${Cause.pretty(exit.cause).slice(0, 500)}`)
          tally.refused++
        }
      }),
      { numRuns: options.numRuns ?? 300 }
    )
  } finally {
    await runtime.dispose()
  }
  return tally
}

/**
 * `signedBodiesAnswered` over 400 bodies: the adapter's own `events` (mutated, most of them), any
 * `extra` bodies, any JSON and any string; both some stored and some refused, so both paths ran.
 */
export const mutatedEventsAnswered = async (options: {
  readonly provider: PaymentProvider
  readonly sign: (body: string) => Record<string, string> | undefined
  readonly events: fc.Arbitrary<unknown>
  readonly extra?: ReadonlyArray<fc.WeightedArbitrary<string>>
}) => {
  const bodies = fc.oneof(
    { weight: 6, arbitrary: options.events.map((e) => JSON.stringify(e) ?? "null") },
    ...(options.extra ?? []),
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string() }
  )
  const tally = await signedBodiesAnswered({ provider: options.provider, sign: options.sign, bodies, numRuns: 400 })
  assert.isAbove(tally.stored, 0)
  assert.isAbove(tally.refused, 0)
}
