/**
 * Exporting Tender's spans and metrics through OpenTelemetry (docs/observability.md). Tender
 * writes them with Effect's own tracer and `Metric`; this module installs what exports them:
 * the host's span processor and metric reader on the OpenTelemetry SDK (`layer`), or OTLP
 * over HTTP from the standard `OTEL_*` variables (`layerFromEnv`).
 *
 * It is not in `@tender/http`'s index: import `@tender/http/OpenTelemetry`. Its packages
 * (`@effect/opentelemetry` and the OpenTelemetry SDK) are optional peers, installed only by
 * hosts that export telemetry; a host that does not pays for none of them.
 *
 * @since 0.1.0
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as Otlp from "@effect/opentelemetry/Otlp"
import { FetchHttpClient } from "@effect/platform"
import type { MetricReader } from "@opentelemetry/sdk-metrics"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Duration, Layer } from "effect"

/** @since 0.1.0 @category models */
export interface Options {
  /** `service.name` of the resource. Default `"tender"`. */
  readonly serviceName?: string | undefined
  readonly serviceVersion?: string | undefined
  /** Where spans go: the host's processor (a `BatchSpanProcessor` over its exporter). */
  readonly spanProcessor?: SpanProcessor | ReadonlyArray<SpanProcessor> | undefined
  /** Who collects the metrics: the host's reader (a `PeriodicExportingMetricReader`, a Prometheus exporter). */
  readonly metricReader?: MetricReader | ReadonlyArray<MetricReader> | undefined
}

/**
 * The OpenTelemetry SDK with the host's span processor and metric reader, as the layer that
 * installs Effect's tracer and metric producer. Provide it to Tender's layers (or merge it
 * into the host's runtime).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: Options): Layer.Layer<never> =>
  Layer.discard(NodeSdk.layer(() => ({
    resource: {
      serviceName: options.serviceName ?? "tender",
      ...(options.serviceVersion === undefined ? {} : { serviceVersion: options.serviceVersion })
    },
    spanProcessor: options.spanProcessor,
    metricReader: options.metricReader
  })))

/** The variables `layerFromEnv` reads. @since 0.1.0 @category models */
export type Env = Readonly<Record<string, string | undefined>>

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded. */
const parseHeaders = (value: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of (value ?? "").split(",")) {
    const eq = pair.indexOf("=")
    if (eq <= 0) continue
    headers[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim())
  }
  return headers
}

/**
 * OTLP over HTTP (JSON) from the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (the
 * collector's base URL; nothing is exported without it), `OTEL_SERVICE_NAME` (default
 * `tender`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_METRIC_EXPORT_INTERVAL` (ms, default 60000),
 * `OTEL_BSP_SCHEDULE_DELAY` (ms between span exports, default 5000),
 * `OTEL_SDK_DISABLED=true` (off). Sends through `fetch`; needs no SDK package.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromEnv = (env: Env = process.env): Layer.Layer<never> => {
  const endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"]
  if (endpoint === undefined || endpoint === "" || env["OTEL_SDK_DISABLED"] === "true") return Layer.empty
  const millis = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback)
    return Duration.millis(Number.isFinite(value) && value > 0 ? value : fallback)
  }
  return Otlp.layerJson({
    baseUrl: endpoint,
    resource: { serviceName: env["OTEL_SERVICE_NAME"] ?? "tender" },
    headers: parseHeaders(env["OTEL_EXPORTER_OTLP_HEADERS"]),
    metricsExportInterval: millis("OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    tracerExportInterval: millis("OTEL_BSP_SCHEDULE_DELAY", 5_000)
  }).pipe(Layer.provide(FetchHttpClient.layer))
}

/** Whether the variables turn export on (`layerFromEnv` is not empty). @since 0.1.0 */
export const enabledInEnv = (env: Env = process.env): boolean => (env["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? "") !== "" && env["OTEL_SDK_DISABLED"] !== "true"
