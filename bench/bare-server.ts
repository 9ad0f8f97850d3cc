/**
 * The ceiling for the HTTP numbers: a bare HttpApi on the same stack that does nothing.
 * GET /noop answers a small JSON object; POST /noop decodes a JSON body of the size of a
 * create request and answers it.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

class Bare extends HttpApi.make("bare").add(
  HttpApiGroup.make("noop")
    .add(HttpApiEndpoint.get("get", "/noop").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
    .add(HttpApiEndpoint.post("post", "/noop").setPayload(Schema.Record({ key: Schema.String, value: Schema.Unknown })).addSuccess(Schema.Struct({ ok: Schema.Boolean }), { status: 201 }))
) {}

const handlers = HttpApiBuilder.group(Bare, "noop", (h) =>
  h.handle("get", () => Effect.succeed({ ok: true })).handle("post", () => Effect.succeed({ ok: true })))

const port = Number(process.env["PORT"] ?? "3999")
const server = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Bare).pipe(Layer.provide(handlers))),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
)
NodeRuntime.runMain(
  Layer.launch(Layer.effectDiscard(Effect.sync(() => process.stdout.write(`bare server listening on http://127.0.0.1:${port}\n`))).pipe(Layer.provide(server)))
)
