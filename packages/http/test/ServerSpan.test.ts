/**
 * The platform's server span is left out of Tender's own requests while no tracer exports
 * spans (docs/observability.md, "Cost"): read per request from the request's fiber, kept for
 * the host's own routes beside a mounted Tender, and kept whenever a tracer is installed.
 */
import { HttpApiBuilder, HttpMiddleware, HttpServer, HttpServerRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FiberRef, Layer, Runtime, Tracer } from "effect"
import { layer as services } from "../../core/test/fixtures.js"
import { TenderHttp } from "../src/index.js"
import * as Observe from "../src/internal/observe.js"
import * as Mount from "../src/Mount.js"

/** Whether the platform's tracer middleware would leave out the span of a request to `url`, asked from the current fiber. */
const spanLeftOut = (url: string) =>
  Effect.map(FiberRef.get(HttpMiddleware.currentTracerDisabledWhen), (disabled) => disabled(HttpServerRequest.fromWeb(new Request(`http://localhost${url}`))))

/** A tracer of the host's own (its spans made as Effect's are), as a host's OpenTelemetry layer installs one. */
const hostTracer = Tracer.make({
  span: (name, parent, context, links, startTime, kind) => {
    const native = Effect.runSync(Effect.tracer)
    return native.span(name, parent, context, links, startTime, kind)
  },
  context: (f) => f()
})

const runIn = <A>(layer: Layer.Layer<never>, effect: Effect.Effect<A>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.toRuntime(layer), (runtime) => Effect.promise(() => Runtime.runPromise(runtime)(effect)))))

describe("server span", () => {
  it("observability: under Effect's default tracer no server span is built for Tender's paths; the host's paths beside a mounted Tender keep theirs", async () => {
    const mounted = Observe.layerServerSpanWhenExported.pipe(Layer.provide(Mount.layer({ prefix: "/payments", standalone: false })))
    const [tender, health, host] = await runIn(
      mounted,
      Effect.all([spanLeftOut("/payments/payment_intents?limit=1"), spanLeftOut("/payments/healthz"), spanLeftOut("/orders/1")])
    )
    assert.isTrue(tender, "a Tender path keeps no span nobody reads")
    assert.isTrue(health, "a health path under the mount is Tender's")
    assert.isFalse(host, "the host's own route keeps its span")
  })

  it("observability: with a tracer installed, for the whole runtime or for one request, Tender's requests keep their server span", async () => {
    const standalone = Observe.layerServerSpanWhenExported.pipe(Layer.provide(Mount.layer({ standalone: true })))
    const [untraced, perRequest] = await runIn(
      standalone,
      Effect.all([spanLeftOut("/payment_intents"), Effect.withTracer(spanLeftOut("/payment_intents"), hostTracer)])
    )
    assert.isTrue(untraced)
    assert.isFalse(perRequest, "a tracer installed after Tender was built is read from the request's fiber")
    const traced = await runIn(Layer.merge(standalone, Layer.setTracer(hostTracer)), spanLeftOut("/payment_intents"))
    assert.isFalse(traced)
  })

  it("observability: a host's own HttpMiddleware.withTracerDisabledWhen predicate is kept", async () => {
    const hostRule = Layer.locallyScoped(
      HttpMiddleware.currentTracerDisabledWhen,
      (request: HttpServerRequest.HttpServerRequest) => request.url === "/internal/ping"
    )
    const layer = Observe.layerServerSpanWhenExported.pipe(
      Layer.provide(Mount.layer({ prefix: "/payments", standalone: false })),
      Layer.provide(hostRule),
      Layer.provide(Layer.setTracer(hostTracer))
    )
    const [ping, tender] = await runIn(layer, Effect.all([spanLeftOut("/internal/ping"), spanLeftOut("/payments/payment_intents")]))
    assert.isTrue(ping, "the host's rule still leaves its path out")
    assert.isFalse(tender, "a traced Tender request keeps its span")
  })

  it("observability: the rule reaches the runtime a host serves Tender from (TenderHttp.layer, as toWebHandler builds it)", async () => {
    const whole = Layer.mergeAll(
      TenderHttp.layer.pipe(Layer.provide(services())),
      HttpServer.layerContext,
      HttpApiBuilder.Router.Live,
      HttpApiBuilder.Middleware.layer
    )
    const left = await runIn(Layer.discard(whole), spanLeftOut("/payment_intents"))
    assert.isTrue(left)
  })
})
