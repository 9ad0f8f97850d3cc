/**
 * A tiny local server standing in for Acme Pay, for the tests and the README's first run:
 * charges in memory, a QR for PromptPay, `confirm` pays a pending charge, an idempotency key
 * answers the charge it made first; a refund of a paid charge succeeds, once per idempotency
 * key, and fails (Acme's `exceeds_charge`) past what is left of the charge; `cancel` ends a
 * pending charge (a paid one stays paid). `failNext(n)` answers the next n calls with 503 (an
 * outage); `pay` (the amount asked, or another) and `decline` are the payer's side. Once
 * `notifyTo(url)` names where, every change of a charge is also sent there as Acme's signed
 * notification (`acme-signature: t=<unix seconds>,v1=<HMAC-SHA256 hex of "<t>.<body>">` with the
 * webhook secret), before `pay` or `decline` resolves.
 */
import { createHmac } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { AcmeCharge } from "./AcmePay.js"

const read = (req: IncomingMessage) =>
  new Promise<string>((ok) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => ok(body))
  })

/** The secret Acme signs its notifications with, unless `start` is given another. */
export const webhookSecret = "acme_whsec_example"

/** Acme's signature header for `body` at `t` (unix seconds). */
export const sign = (body: string, secret: string, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`

export const start = async (port = 0, secret = webhookSecret) => {
  const charges = new Map<string, AcmeCharge & { reference: string; amount: string }>()
  const byKey = new Map<string, string>()
  type Refund = { id: string; status: "succeeded" | "failed"; failure_code?: string }
  const refunds = new Map<string, Refund>()
  const refunded = new Map<string, bigint>()
  const seen: Array<{ method: string; path: string; idempotencyKey: string | undefined; body: unknown }> = []
  let failures = 0
  let notificationUrl: string | undefined
  /** Acme's notification of a charge as it now stands: one event id per charge and status, so a redelivery is the same event. */
  const notify = async (charge: AcmeCharge & { reference: string; amount: string }) => {
    if (notificationUrl === undefined) return
    const type = charge.status === "paid"
      ? "charge.paid"
      : charge.status === "declined"
      ? "charge.declined"
      : charge.status === "canceled"
      ? "charge.canceled"
      : "charge.updated"
    const body = JSON.stringify({
      id: `evt_${charge.id}_${charge.status}`,
      type,
      livemode: true,
      data: {
        id: charge.id,
        reference: charge.reference,
        amount: charge.amount_paid ?? charge.amount,
        currency: "THB",
        status: charge.status,
        decline_code: charge.decline_code ?? null
      }
    })
    const res = await fetch(notificationUrl, { method: "POST", headers: { "content-type": "application/json", "acme-signature": sign(body, secret) }, body })
    await res.arrayBuffer()
  }
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
      const charge = {
        id: `ch_${charges.size + 1}`,
        status: "pending" as const,
        qr_payload: `00020101021229370016A000000677010111${charges.size}`,
        reference: body.reference,
        amount: body.amount
      }
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
    if (req.method === "POST" && path.endsWith("/cancel")) {
      // Idempotent: a canceled charge answers canceled again, a paid one stays paid.
      if (charge.status === "pending") charges.set(charge.id, { ...charge, status: "canceled" })
      return send(200, charges.get(charge.id))
    }
    if (req.method === "POST" && path.endsWith("/confirm")) {
      if (charge.status === "pending") charges.set(charge.id, { ...charge, status: "paid", amount_paid: charge.amount })
      return send(200, charges.get(charge.id))
    }
    return send(200, charge)
  })
  const settle = async (chargeId: string, change: Partial<AcmeCharge>) => {
    const charge = charges.get(chargeId)
    if (charge?.status !== "pending") throw new Error(`Acme holds no pending charge ${chargeId}`)
    const settled = { ...charge, ...change }
    charges.set(chargeId, settled)
    await notify(settled)
  }
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    failNext: (n: number) => void (failures = n),
    /** Where Acme sends its notifications from now on (Tender's `POST /provider_notifications/acme`). */
    notifyTo: (url: string) => void (notificationUrl = url),
    /** The charges Acme holds, by its id. */
    charges: charges as ReadonlyMap<string, AcmeCharge & { reference: string; amount: string }>,
    /** How much of a charge Acme refunded, minor units. */
    refunded: (chargeId: string) => (refunded.get(chargeId) ?? 0n).toString(),
    /** The payer pays a pending charge (`amountPaid`: another amount than the charge's), and Acme notifies once `notifyTo` named where. */
    pay: (chargeId: string, amountPaid?: string) => settle(chargeId, { status: "paid", amount_paid: amountPaid ?? charges.get(chargeId)?.amount }),
    /** Acme ends a pending charge unpaid on its own (its QR code expired). */
    expire: (chargeId: string) => settle(chargeId, { status: "canceled" }),
    /** Acme declines a pending charge with its own code. */
    decline: (chargeId: string, declineCode: string) =>
      settle(chargeId, { status: "declined", decline_code: declineCode, decline_message: "Acme declined the charge." }),
    close: () => new Promise<void>((ok) => server.close(() => ok()))
  }
}
