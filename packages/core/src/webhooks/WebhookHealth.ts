/**
 * Auto-disable (after Svix): an endpoint whose every attempt failed for the host's
 * `disableAfterMillis` (default 5 days) is disabled, with a `webhook_endpoint.disabled` event
 * written in the same commit; while disabled it is sent nothing, until the merchant enables it
 * again (`POST /webhook_endpoints/{id}/enable`, docs/webhooks.md).
 *
 * The endpoint keeps when its current run of failures began (`failingSince`), written only
 * when the run starts, ends or disables the endpoint, so a busy endpoint's record is not
 * rewritten on every attempt.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import * as Event from "../events/Event.js"
import { Storage, Write } from "../storage/Storage.js"
import { retryWhileStale } from "../storage/StorageError.js"
import { WebhookConfig } from "./WebhookConfig.js"
import * as WebhookEndpoint from "./WebhookEndpoint.js"

/**
 * Take an attempt's outcome into the endpoint's health: a success ends a run of failures; the
 * first failure after a success starts one; a failure `disableAfterMillis` or more after the
 * run began disables the endpoint, with its event. Decided on the endpoint as the delivery read
 * it (no read of its own in the steady state); read again and retried when a concurrent attempt
 * changed the endpoint first.
 *
 * @since 0.1.0
 */
export const recordAttempt = (read: WebhookEndpoint.WebhookEndpointRecord, ok: boolean, at: number) => {
  const scope = { merchantId: read.merchantId, environment: read.environment }
  const decide = (fresh: boolean) =>
    Effect.gen(function*() {
      const storage = yield* Storage
      const { disableAfterMillis } = yield* WebhookConfig
      const endpoint = fresh ? Option.getOrUndefined(yield* storage.get(WebhookEndpoint.table, scope, read.id)) : read
      if (endpoint === undefined || endpoint.status !== "enabled") return
      const next = { ...endpoint, updatedAt: Math.max(at, endpoint.updatedAt), version: endpoint.version + 1 }
      if (ok) {
        if (endpoint.failingSince === null) return
        return yield* storage.commit([Write.update(WebhookEndpoint.table, { ...next, failingSince: null }, endpoint.version)])
      }
      if (endpoint.failingSince === null) {
        return yield* storage.commit([Write.update(WebhookEndpoint.table, { ...next, failingSince: at }, endpoint.version)])
      }
      if (at - endpoint.failingSince < disableAfterMillis) return
      const disabled = { ...next, status: "disabled" as const, failingSince: null }
      const events = yield* Event.writes(disabled, "webhook_endpoint", WebhookEndpoint.toResource(disabled), ["webhook_endpoint.disabled"])
      yield* storage.commit([Write.update(WebhookEndpoint.table, disabled, endpoint.version), ...events])
    })
  return decide(false).pipe(
    Effect.catchIf((e) => e._tag === "StaleVersion", () => retryWhileStale(decide(true)))
  )
}
