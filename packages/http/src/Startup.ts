/**
 * Start-up in the right order (docs/reliability.md, "Start-up"): storage first, the port last.
 *
 * A server that listens before its storage is connected and migrated takes connections it
 * cannot serve: they wait, unanswered, for as long as the database takes (for ever, if it is
 * frozen). `serve` builds the core services (storage connected, migrations run, the seed
 * loaded, workers started) within a start-up timeout, and only then builds the HTTP server,
 * so the port opens once every request can be answered; until then a client is refused at
 * once (connection refused) and its retry finds a ready server.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import type { HttpRouter, HttpServer } from "@effect/platform"
import { Data, Duration, Effect, Layer } from "effect"
import type * as Mount from "./Mount.js"
import * as TenderHttp from "./TenderHttp.js"

/**
 * How long start-up may take before it gives up, when the host sets nothing: long enough for
 * a cold database and its migrations, short enough that a frozen one is reported, not waited on.
 *
 * @since 0.1.0
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(30)

/** The services were not ready within the start-up timeout. @since 0.1.0 @category errors */
export class StartupTimeout extends Data.TaggedError("StartupTimeout")<{ readonly millis: number; readonly message: string }> {}

/**
 * `services` built within `timeout`, or `StartupTimeout` at once: the build is interrupted in the
 * background and what it acquired is released when the interruption completes (a host exits).
 *
 * @since 0.1.0 @category layers
 */
export const ready = <ROut, E, RIn>(
  services: Layer.Layer<ROut, E, RIn>,
  timeout: Duration.DurationInput = defaultTimeout
): Layer.Layer<ROut, E | StartupTimeout, RIn> => {
  const millis = Duration.toMillis(Duration.decode(timeout))
  return Layer.scopedContext(
    Layer.build(services).pipe(
      // A driver may wait on a frozen database inside an uninterruptible acquire (the PostgreSQL
      // pool's first connection does): the timeout answers at once and the build is interrupted
      // in the background, instead of waiting for an interruption that never completes.
      Effect.disconnect,
      Effect.timeoutFail({
        duration: millis,
        onTimeout: () => new StartupTimeout({ millis, message: `storage was not ready within ${millis} ms` })
      })
    )
  )
}

/**
 * The API served by `server` (for example `NodeHttpServer.layer(createServer, { port })`),
 * which is built, and so listens, only once `services` are ready (`ready`): the order a host
 * wants, without having to know which way round `Layer.provide` builds.
 *
 * @since 0.1.0 @category layers
 */
export const serve = <ES, RS, EH, RH>(options: {
  readonly services: Layer.Layer<TenderHttp.Services, ES, RS>
  readonly server: Layer.Layer<HttpServer.HttpServer | HttpRouter.HttpRouter.DefaultServices, EH, RH>
  readonly timeout?: Duration.DurationInput | undefined
  /** Where and how the API is mounted: prefix, health routes, uploads at once (`Mount.MountOptions`). */
  readonly mount?: Mount.MountOptions | undefined
}): Layer.Layer<never, ES | EH | StartupTimeout, RS | RH> =>
  // Layer.provide builds its argument first: the services, then the server, then the API on them.
  HttpApiBuilder.serve().pipe(
    Layer.provide(options.mount === undefined ? TenderHttp.layer : TenderHttp.layerWith(options.mount)),
    Layer.provide(options.server),
    Layer.provide(ready(options.services, options.timeout))
  )
