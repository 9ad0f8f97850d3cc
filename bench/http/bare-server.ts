/**
 * The ceiling for the HTTP numbers: a bare HttpApi on the same stack that does nothing.
 * GET /noop answers a small JSON object; POST /noop decodes a JSON body of the size of a
 * create request and answers it. GET /page answers a list page of 25 payment intents (of the
 * shape and size Tender sends) held as text: the floor of a list page's cost, what the stack and
 * the socket take to send those bytes, with nothing read and nothing rendered.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { WebhookEvents } from "@tender/core"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

// The catalogue's example of an intent awaiting a PromptPay payment (the shape Tender sends), its QR
// payload as long as a real one, under 25 ids.
const example = WebhookEvents.catalogue.data.find((e) => e.type === "payment_intent.requires_action")!.example.data.object as Record<string, unknown>
const intent = (i: number) => ({
  ...example,
  id: `dord_${String(i).padStart(24, "0")}`,
  next_action: { type: "display_qr_code", qr_data: `00020101021230570016A00000067701011201150105536000315080214KB${String(i).padStart(80, "0")}6304ABCD` }
})
const page = JSON.stringify({
  data: Array.from({ length: 25 }, (_, i) => intent(i)),
  has_more: true,
  next_cursor: "eyJjIjoxNzY0MjAwMDAwMDAwLCJpIjoiZG9yZF8wMDAwIn0"
})

class Bare extends HttpApi.make("bare").add(
  HttpApiGroup.make("noop")
    .add(HttpApiEndpoint.get("get", "/noop").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
    .add(HttpApiEndpoint.get("page", "/page").addSuccess(Schema.Unknown))
    .add(
      HttpApiEndpoint.post("post", "/noop").setPayload(Schema.Record({ key: Schema.String, value: Schema.Unknown })).addSuccess(
        Schema.Struct({ ok: Schema.Boolean }),
        { status: 201 }
      )
    )
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
