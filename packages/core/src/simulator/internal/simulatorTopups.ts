/**
 * The simulator's top-ups (2.5): its sources, and how it starts a top-up, reports its status
 * and reviews its receipt. `Simulator.make` installs them with its timings; `Simulator.topupSources` is public.
 */
import { Effect } from "effect"
import { failure } from "../../providers/internal/providerFailures.js"
import type { ProviderTopups } from "../../providers/Provider.js"
import { sha256 } from "../../requests/Canonical.js"
import { magicAmounts, serves } from "./simulator.js"

/** `Simulator.topupSources`. */
export const topupSources: ProviderTopups["sources"] = [
  { type: "test_funding", currency: "THB", network: null, environments: ["test"] },
  { type: "test_funding", currency: "USD", network: null, environments: ["test"] },
  { type: "manual_receipt", currency: "THB", network: null, environments: ["test"] },
  { type: "provider_gateway", currency: "USDT", network: "tron", environments: ["test"] },
  { type: "provider_gateway", currency: "ETH", network: "ethereum", environments: ["test"] }
]

/**
 * Top-ups at the simulator. Magic values are the top-up's `destination_amount`, as for
 * payments: `declineOnConfirm` fails it, `rejectReceipt` rejects its receipt, `expireSoon`
 * is never paid and expires after `shortExpiryMillis`, `unavailable` is an outage. Any
 * other amount: test funding and a crypto deposit are seen paid at the first look, a
 * manual receipt is accepted.
 */
export const topups = (shortExpiryMillis: number): ProviderTopups => ({
  sources: topupSources,
  start: (request) =>
    Effect.gen(function*() {
      yield* serves({ environment: request.environment, amount: request.destinationAmount })
      const providerTopupId = "simtu_" + sha256(request.topupIntentId).slice(0, 24)
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const expiresAt = request.destinationAmount === magicAmounts.expireSoon ? now + shortExpiryMillis : undefined
      switch (request.sourceType) {
        case "test_funding":
          return { providerTopupId, instructions: { _tag: "None" as const }, expiresAt }
        case "manual_receipt":
          return {
            providerTopupId,
            expiresAt,
            instructions: {
              _tag: "BankTransfer" as const,
              bankCode: "KBANK",
              bankName: "Kasikornbank",
              accountNumber: "0471234567",
              accountName: "Tender Simulator Co., Ltd.",
              reference: providerTopupId.slice(6, 18).toUpperCase()
            }
          }
        case "provider_gateway": {
          // A deterministic, well-formed-looking deposit address per top-up and network.
          const digest = sha256(`${request.network}:${request.topupIntentId}`)
          const address = request.network === "ethereum" ? `0x${digest.slice(0, 40)}` : `T${digest.slice(0, 33)}`
          return { providerTopupId, instructions: { _tag: "CryptoAddress" as const, address }, expiresAt }
        }
      }
    }),
  status: (topup) =>
    Effect.gen(function*() {
      yield* serves({ environment: topup.environment, amount: topup.destinationAmount })
      switch (topup.destinationAmount) {
        case magicAmounts.declineOnConfirm:
          return { _tag: "Failed" as const, ...failure("payment_declined") }
        case magicAmounts.expireSoon:
          return { _tag: "Pending" as const }
      }
      // A manual transfer is proved by its receipt, not seen by the provider.
      return topup.sourceType === "manual_receipt" ? { _tag: "Pending" as const } : { _tag: "Succeeded" as const }
    }),
  submitReceipt: (topup) =>
    Effect.gen(function*() {
      yield* serves({ environment: topup.environment, amount: topup.destinationAmount })
      return topup.destinationAmount === magicAmounts.rejectReceipt
        ? { _tag: "Failed" as const, ...failure("receipt_rejected") }
        : { _tag: "Succeeded" as const }
    })
})
