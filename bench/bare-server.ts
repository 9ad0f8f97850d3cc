/**
 * The ceiling for the HTTP numbers: a bare HttpApi on the same stack that does nothing.
 * GET /noop answers a small JSON object; POST /noop decodes a JSON body of the size of a
 * create request and answers it. GET /page answers a list page of 25 payment intents (of the
 * shape and size Tender sends) held as text: the floor of a list page's cost, what the stack and
 * the socket take to send those bytes, with nothing read and nothing rendered.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

const intent = (i: number) => ({
  object: "payment_intent",
  id: `dord_${String(i).padStart(24, "0")}`,
  amount: "150000",
  currency: "THB",
  country: "TH",
  environment: "test",
  checkout_mode: "merchant",
  status: "requires_action",
  merchant_reference: null,
  payment_method: "th_promptpay",
  next_action: {
    type: "display_qr_code",
    qr_code: {
      data: `00020101021230570016A00000067701011201150105536000315080214KB${String(i).padStart(12, "0")}5303764540515000.005802TH6304ABCD`,
      image_url_png: `http://127.0.0.1:3000/payment_intents/dord_${String(i).padStart(24, "0")}/qr.png`,
      expires_at: "2026-11-26T23:59:59.000Z"
    }
  },
  failure_code: null,
  failure_message: null,
  cancellation_reason: null,
  amount_refunded: "0",
  processing_reason: null,
  receipt: null,
  created_at: "2026-11-26T23:44:59.123Z",
  updated_at: "2026-11-26T23:44:59.123Z"
})
const page = JSON.stringify({ data: Array.from({ length: 25 }, (_, i) => intent(i)), has_more: true, next_cursor: "eyJjIjoxNzY0MjAwMDAwMDAwLCJpIjoiZG9yZF8wMDAwIn0" })

class Bare extends HttpApi.make("bare").add(
  HttpApiGroup.make("noop")
    .add(HttpApiEndpoint.get("get", "/noop").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
    .add(HttpApiEndpoint.get("page", "/page").addSuccess(Schema.Unknown))
    .add(HttpApiEndpoint.post("post", "/noop").setPayload(Schema.Record({ key: Schema.String, value: Schema.Unknown })).addSuccess(Schema.Struct({ ok: Schema.Boolean }), { status: 201 }))
) {}

const handlers = HttpApiBuilder.group(Bare, "noop", (h) =>
  h.handle("get", () => Effect.succeed({ ok: true }))
    .handle("page", () => Effect.succeed(HttpServerResponse.raw(page, { contentType: "application/json", contentLength: Buffer.byteLength(page) })))
    .handle("post", () => Effect.succeed({ ok: true })))

const port = Number(process.env["PORT"] ?? "3999")
const server = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Bare).pipe(Layer.provide(handlers))),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
)
NodeRuntime.runMain(
  Layer.launch(Layer.effectDiscard(Effect.sync(() => process.stdout.write(`bare server listening on http://127.0.0.1:${port}\n`))).pipe(Layer.provide(server)))
)
