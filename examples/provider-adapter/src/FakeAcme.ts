/**
 * A tiny local server standing in for Acme Pay, for the tests and the README's first run:
 * charges in memory, a QR for PromptPay, `confirm` pays, an idempotency key answers the
 * charge it made first; a refund of a paid charge succeeds, once per idempotency key. `failNext(n)` answers the next n calls with 503 (an outage).
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
  const charges = new Map<string, AcmeCharge & { reference: string }>()
  const byKey = new Map<string, string>()
  const refunds = new Map<string, { id: string; status: "succeeded" }>()
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
      const body = JSON.parse(text) as { reference: string }
      const charge = { id: `ch_${charges.size + 1}`, status: "pending" as const, qr_payload: `00020101021229370016A000000677010111${charges.size}`, reference: body.reference }
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
      const refund = { id: `re_${refunds.size + 1}`, status: "succeeded" as const }
      if (key !== undefined) refunds.set(key, refund)
      return send(201, refund)
    }
    if (req.method === "POST" && path.endsWith("/confirm")) {
      const paid = { ...charge, status: "paid" as const }
      charges.set(charge.id, paid)
      return send(200, paid)
    }
    return send(200, charge)
  })
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    failNext: (n: number) => void (failures = n),
    close: () => new Promise<void>((ok) => server.close(() => ok()))
  }
}
