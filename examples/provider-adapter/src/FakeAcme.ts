/**
 * A tiny local server standing in for Acme Pay, for the tests and the README's first run:
 * charges in memory, a QR for PromptPay, `confirm` pays a pending charge, an idempotency key
 * answers the charge it made first; a refund of a paid charge succeeds, once per idempotency
 * key, and fails (Acme's `exceeds_charge`) past what is left of the charge. `failNext(n)`
 * answers the next n calls with 503 (an outage); `pay` (the amount asked, or another) and
 * `decline` are the payer's side.
 */
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { AcmeCharge } from "./AcmePay.js"

const read = (req: IncomingMessage) =>
  new Promise<string>((ok) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => ok(body))
  })

export const start = async (port = 0) => {
  const charges = new Map<string, AcmeCharge & { reference: string; amount: string }>()
  const byKey = new Map<string, string>()
  type Refund = { id: string; status: "succeeded" | "failed"; failure_code?: string }
  const refunds = new Map<string, Refund>()
  const refunded = new Map<string, bigint>()
  const seen: Array<{ method: string; path: string; idempotencyKey: string | undefined; body: unknown }> = []
  let failures = 0
  const server = createServer(async (req, res) => {
    const text = await read(req)
    const path = req.url ?? "/"
    const key = req.headers["idempotency-key"] as string | undefined
    seen.push({ method: req.method ?? "GET", path, idempotencyKey: key, body: text === "" ? undefined : JSON.parse(text) })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    if (failures > 0) {
      failures--
      return send(503, { error: "maintenance" })
    }
    if (req.headers.authorization !== "Bearer acme_test_key") return send(401, { error: "unauthorized" })
    const id = /^\/v1\/charges\/([^/]+)/.exec(path)?.[1]
    if (req.method === "POST" && path === "/v1/charges") {
      const existing = key === undefined ? undefined : byKey.get(key)
      if (existing !== undefined) return send(200, charges.get(existing))
      const body = JSON.parse(text) as { reference: string; amount: string }
      const charge = { id: `ch_${charges.size + 1}`, status: "pending" as const, qr_payload: `00020101021229370016A000000677010111${charges.size}`, reference: body.reference, amount: body.amount }
      charges.set(charge.id, charge)
      if (key !== undefined) byKey.set(key, charge.id)
      return send(201, charge)
    }
    const charge = id === undefined ? undefined : charges.get(id)
    if (charge === undefined) return send(404, { error: "no such charge" })
    if (req.method === "POST" && path.endsWith("/refunds")) {
      if (charge.status !== "paid") return send(409, { error: "charge not paid" })
      const existing = key === undefined ? undefined : refunds.get(key)
      if (existing !== undefined) return send(200, existing)
      const amount = BigInt((JSON.parse(text) as { amount: string }).amount)
      const taken = refunded.get(charge.id) ?? 0n
      const refund: Refund = taken + amount > BigInt(charge.amount)
        ? { id: `re_${refunds.size + 1}`, status: "failed", failure_code: "exceeds_charge" }
        : { id: `re_${refunds.size + 1}`, status: "succeeded" }
      if (refund.status === "succeeded") refunded.set(charge.id, taken + amount)
      if (key !== undefined) refunds.set(key, refund)
      return send(201, refund)
    }
    if (req.method === "POST" && path.endsWith("/confirm")) {
      if (charge.status === "pending") charges.set(charge.id, { ...charge, status: "paid", amount_paid: charge.amount })
      return send(200, charges.get(charge.id))
    }
    return send(200, charge)
  })
  const settle = (chargeId: string, change: Partial<AcmeCharge>) => {
    const charge = charges.get(chargeId)
    if (charge?.status !== "pending") throw new Error(`Acme holds no pending charge ${chargeId}`)
    charges.set(chargeId, { ...charge, ...change })
  }
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    failNext: (n: number) => void (failures = n),
    /** The charges Acme holds, by its id. */
    charges: charges as ReadonlyMap<string, AcmeCharge & { reference: string; amount: string }>,
    /** How much of a charge Acme refunded, minor units. */
    refunded: (chargeId: string) => (refunded.get(chargeId) ?? 0n).toString(),
    /** The payer pays a pending charge (`amountPaid`: another amount than the charge's). */
    pay: (chargeId: string, amountPaid?: string) => settle(chargeId, { status: "paid", amount_paid: amountPaid ?? charges.get(chargeId)?.amount }),
    /** Acme declines a pending charge with its own code. */
    decline: (chargeId: string, declineCode: string) => settle(chargeId, { status: "declined", decline_code: declineCode, decline_message: "Acme declined the charge." }),
    close: () => new Promise<void>((ok) => server.close(() => ok()))
  }
}
