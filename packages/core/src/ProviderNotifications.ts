/**
 * Provider notifications (D11): `receive` verifies a provider's request through its adapter,
 * stores each notice once per (provider, event id) in the same commit as the task that applies
 * it, and gives back the answer the provider expects; `run` is that task, which applies the
 * notice through the rules that already exist (`internal/providerNotices.ts`). A repeat of a
 * stored event id stores nothing and causes nothing; two processes storing it at once collide
 * on its id, and the loser finds it stored.
 *
 * @since 0.1.0
 */
import { Clock, Data, Effect, Option } from "effect"
import type { IdGenerator } from "./Ids.js"
import { ProviderRegistry } from "./Provider.js"
import type { NotificationAnswer, NotificationUnverified, ProviderNotificationRequest } from "./ProviderNotification.js"
import type { ProviderNotice } from "./ProviderNotification.js"
import { received, table } from "./ProviderNotification.js"
import * as ProviderResults from "./ProviderResults.js"
import { Storage, Write } from "./Storage.js"
import type { StorageError } from "./StorageError.js"
import * as Task from "./Task.js"
import * as Telemetry from "./Telemetry.js"
import { apply } from "./internal/providerNotices.js"
import { retryWhileStale } from "./StorageError.js"

/** No installed provider takes notifications under this code (404 `resource_not_found`). @since 0.1.0 @category errors */
export class UnknownNotificationProvider extends Data.TaggedError("UnknownNotificationProvider")<{ readonly provider: string }> {}

/**
 * The adapter verified the request but read it into something the port does not allow (a
 * notice without its `environment`): the adapter's fault, never stored. The provider is answered
 * 503 and sends it again, so nothing is lost once the adapter is fixed; `reason` names the field.
 *
 * @since 0.1.0 @category errors
 */
export class NotificationUnreadable extends Data.TaggedError("NotificationUnreadable")<{ readonly provider: string; readonly reason: string }> {}

const count = (provider: string, notice: ProviderNotice["_tag"], outcome: string) =>
  Telemetry.record(Telemetry.metrics.providerNotices, 1, { provider, notice, outcome })

/** Store the notices not stored yet, each with its apply task, in one commit. */
const store = (provider: string, notices: ReadonlyArray<ProviderNotice>) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const writes: Array<Write> = []
    const ignored: Array<ProviderNotice> = []
    const seen = new Set<string>()
    for (const notice of notices) {
      const record = received(provider, notice, now)
      if (seen.has(record.id)) continue
      seen.add(record.id)
      if (Option.isSome(yield* storage.find(table, record.id))) continue
      writes.push(Write.insert(table, record))
      if (record.status === "ignored") ignored.push(notice)
      else {
        const task = yield* Task.make({
          merchantId: record.merchantId,
          environment: record.environment,
          kind: "provider_notice.apply",
          resourceId: record.id,
          dueAt: now,
          now
        })
        writes.push(Write.insert(Task.table, task))
      }
    }
    if (writes.length > 0) yield* storage.commit(writes)
    return ignored
  }).pipe(
    // Another process stored one of them first: read again, and store only what is still new.
    Effect.retry({ while: (e) => e._tag === "UniqueViolation", times: 3 }),
    // An ignored notice has no task: it is counted as it is stored.
    Effect.tap((ignored) => Effect.forEach(ignored, () => count(provider, "Ignored", "ignored"), { discard: true }))
  )

/**
 * Receive a notification for provider `code` (D11): the adapter verifies it (an unverifiable
 * request fails with `NotificationUnverified`, nothing stored); each notice is stored once, with
 * the task that applies it, before the answer the adapter gives is returned. A provider that is
 * not installed, or takes no notifications, fails with `UnknownNotificationProvider`.
 *
 * @since 0.1.0
 */
export const receive = (
  code: string,
  request: ProviderNotificationRequest
): Effect.Effect<
  NotificationAnswer,
  UnknownNotificationProvider | NotificationUnverified | NotificationUnreadable | StorageError,
  ProviderRegistry | Storage | IdGenerator
> =>
  Effect.gen(function*() {
    const adapter = (yield* ProviderRegistry).get(code)
    if (adapter?.parseNotification === undefined) return yield* new UnknownNotificationProvider({ provider: code })
    // Only an installed provider's code names the span: the path's text is anyone's.
    yield* Effect.annotateCurrentSpan("tender.provider", code)
    const parsed = yield* adapter.parseNotification(request)
    // An adapter that answers something else than the port says is at fault: never stored, and
    // logged as one line naming the field (not the schema's whole text).
    const problem = ProviderResults.problem(code, "parseNotification", parsed)
    if (problem !== undefined) {
      yield* Effect.logError(`tender: ${problem}`)
      return yield* new NotificationUnreadable({ provider: code, reason: problem })
    }
    yield* store(code, parsed.notices)
    return parsed.answer
  }).pipe(Effect.withSpan("tender.provider.notification"))

/**
 * Run the apply task of a stored notice: the object it names moves (or not) and the notice's
 * status, in one commit, read afresh and decided again when a concurrent change moved what it
 * read. A notice already applied is left alone, so a second run changes nothing.
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | IdGenerator | ProviderRegistry> =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const found = yield* storage.find(table, task.resourceId)
    if (Option.isNone(found) || found.value.status !== "received") return
    const record = found.value
    const applied = yield* apply(record.provider, record.notice)
    const now = yield* Clock.currentTimeMillis
    yield* storage.commit([
      ...applied.writes,
      Write.update(table, {
        ...record,
        status: applied.status,
        resourceId: applied.resourceId,
        detail: applied.detail,
        updatedAt: Math.max(now, record.updatedAt),
        version: record.version + 1
      }, record.version)
    ])
    yield* count(record.provider, record.notice._tag, applied.status)
    if (applied.status === "mismatch") {
      yield* Effect.logWarning("tender: a provider reported a payment that differs from its intent; the intent is left as it is", record.provider, record.eventId, applied.detail)
    }
  }).pipe(
    retryWhileStale,
    Effect.as({ _tag: "Done", writes: [] } satisfies Task.Outcome)
  )
