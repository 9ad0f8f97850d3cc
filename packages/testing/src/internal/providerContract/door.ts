/**
 * The provider contract's notification door (D11) on a real HTTP port: each request is kept
 * byte for byte (so a case can deliver it again, or change it) and handed to
 * `ProviderNotifications.receive`, answered as `@tender/http`'s route answers it. Held, it keeps
 * requests without receiving them (Tender unreachable, 503), so a case can see Tender learn a
 * payment by asking the provider alone.
 */
import { ProviderNotifications } from "@tender/core"
import type { ProviderNotification } from "@tender/core"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** An answer on the wire. */
export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

const refusal = (status: number, code: string, message: string): Answer => ({
  status,
  contentType: "application/json",
  body: JSON.stringify({ error: { code, message, request_id: "req_provider_contract" } })
})

/** `receive`, answered as the HTTP route answers it: 400 `signature_invalid`, 404 `resource_not_found` (D11, D1). */
export const receive = (code: string, request: ProviderNotification.ProviderNotificationRequest) =>
  ProviderNotifications.receive(code, request).pipe(
    Effect.map((a): Answer => ({ status: a.status, contentType: a.contentType, body: a.body })),
    Effect.catchTags({
      NotificationUnverified: () => Effect.succeed(refusal(400, "signature_invalid", "The notification's signature does not verify.")),
      UnknownNotificationProvider: () => Effect.succeed(refusal(404, "resource_not_found", "No provider takes notifications here."))
    }),
    Effect.catchAll(() => Effect.succeed(refusal(500, "internal_error", "An unexpected error occurred.")))
  )

/** The door, on 127.0.0.1. `forward` receives a request in Tender. */
export const openDoor = async (forward: (request: ProviderNotification.ProviderNotificationRequest) => Promise<Answer>) => {
  const received: Array<ProviderNotification.ProviderNotificationRequest> = []
  const answers: Array<Promise<Answer>> = []
  let held = false
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]))
      const request = { headers, body: new Uint8Array(Buffer.concat(chunks)) }
      received.push(request)
      const answer = held ? Promise.resolve(refusal(503, "service_unavailable", "Held by the test.")) : forward(request)
      answers.push(answer)
      void answer.then(
        (a) => res.writeHead(a.status, { "content-type": a.contentType }).end(a.body),
        () => res.writeHead(500).end()
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider_notifications`
  return {
    url,
    /** Every request the door got, in order. */
    received,
    /** The door's answer to each of `received`. */
    answers,
    /** Keep requests without receiving them (true) or receive them again (false). */
    hold: (on: boolean) => void (held = on),
    /** Send a request to the door as a provider would: the same headers and bytes. */
    post: async (request: ProviderNotification.ProviderNotificationRequest): Promise<Answer> => {
      const { host: _host, "content-length": _length, connection: _connection, ...headers } = request.headers
      const res = await fetch(url, { method: "POST", headers, body: new Uint8Array(request.body) })
      return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: await res.text() }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** @internal */
export type Door = Awaited<ReturnType<typeof openDoor>>
