/**
 * Provider notifications (D11): `receive` verifies a provider's request through its adapter,
 * stores each notice once per (provider, event id) in the same commit as the task that applies
 * it, and gives back the answer the provider expects; `run` is that task, which applies the
 * notice through the rules that already exist (`internal/notificationApply.ts`). A repeat of a
 * stored event id stores nothing and causes nothing; two processes storing it at once collide
 * on its id, and the loser finds it stored.
 *
 * @since 0.1.0
 */
import { Clock, Data, Duration, Effect, Either, Exit, Option } from "effect"
import type { Merchants } from "../merchants/Merchants.js"
import * as Telemetry from "../observability/Telemetry.js"
import type { IdGenerator } from "../resources/Ids.js"
import { Storage, Write } from "../storage/Storage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as Task from "../storage/Task.js"
import { applyToAttempt } from "./internal/attemptNotifications.js"
import { otherAccount } from "./internal/notificationAccounts.js"
import { apply } from "./internal/notificationApply.js"
import { afterFault, ended, fault, isNotice, unusable } from "./internal/notificationEnd.js"
import { providerText } from "./internal/providerUpdate.js"
import { ProviderRegistry } from "./Provider.js"
import * as ProviderAccounts from "./ProviderAccounts.js"
import type { NotificationAnswer, NotificationUnverified, ProviderNotificationRequest } from "./ProviderNotification.js"
import type { Door, ProviderNotice } from "./ProviderNotification.js"
import { received, table } from "./ProviderNotification.js"
import * as ProviderResults from "./ProviderResults.js"

/** No installed provider takes notifications under this code (404 `resource_not_found`). @since 0.1.0 @category errors */
export class UnknownNotificationProvider extends Data.TaggedError("UnknownNotificationProvider")<{ readonly provider: string }> {}

/**
 * A verified notification whose event id holds U+0000, text no store keeps (PostgreSQL refuses it
 * in a statement): nothing is stored, since a notice is stored under its event id (400
 * `validation_failed`). An id the notice merely names with it matches nothing, and is recorded
 * `unmatched` by its task like any unknown id.
 *
 * @since 0.1.0 @category errors
 */
export class NotificationUnstorable extends Data.TaggedError("NotificationUnstorable")<{ readonly provider: string; readonly reason: string }> {}

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
const store = (provider: string, notices: ReadonlyArray<ProviderNotice>, door: Door) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const now = yield* Clock.currentTimeMillis
    const writes: Array<Write> = []
    const ignored: Array<ProviderNotice> = []
    const seen = new Set<string>()
    for (const notice of notices) {
      const record = received(provider, notice, now, door)
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
 * request fails with `NotificationUnverified`, nothing stored; one whose event id no store keeps,
 * with `NotificationUnstorable`); each notice is stored once, with
 * the task that applies it, before the answer the adapter gives is returned. A provider that is
 * not installed, or takes no notifications, fails with `UnknownNotificationProvider`.
 *
 * @since 0.1.0
 */
export const receive = (
  code: string,
  request: ProviderNotificationRequest,
  accountId?: string | undefined
): Effect.Effect<
  NotificationAnswer,
  UnknownNotificationProvider | NotificationUnverified | NotificationUnstorable | NotificationUnreadable | StorageError,
  ProviderRegistry | Storage | IdGenerator | Merchants
> =>
  Effect.gen(function*() {
    // D13: a merchant's account's door is verified with that account's adapter (its secret) alone.
    const atAccount = accountId === undefined ? undefined : yield* ProviderAccounts.door(code, accountId)
    if (atAccount !== undefined && Option.isNone(atAccount)) return yield* new UnknownNotificationProvider({ provider: code })
    const adapter = atAccount === undefined ? (yield* ProviderRegistry).get(code) : atAccount.value.provider
    if (adapter?.parseNotification === undefined) return yield* new UnknownNotificationProvider({ provider: code })
    const door: Door = atAccount === undefined ? null : { merchantId: atAccount.value.owner.merchant.id, accountId: atAccount.value.owner.account.id }
    // Only an installed provider's code (and a stored account's id) names the span: the path's text is anyone's.
    yield* Effect.annotateCurrentSpan("tender.provider", code)
    if (door !== null) yield* Effect.annotateCurrentSpan("tender.provider_account", door.accountId)
    const parsed = yield* adapter.parseNotification(request)
    // An adapter that answers something else than the port says is at fault: never stored, and
    // logged as one line naming the field (not the schema's whole text).
    const problem = ProviderResults.problem(code, "parseNotification", parsed)
    if (problem !== undefined) {
      yield* Effect.logError(`tender: ${problem}`)
      return yield* new NotificationUnreadable({ provider: code, reason: problem })
    }
    if (parsed.notices.some((notice) => notice.eventId.includes("\u0000"))) {
      return yield* new NotificationUnstorable({ provider: code, reason: "an event id holds U+0000 (NUL)" })
    }
    // The rest of a notice's text is made storable on every store alike (`providerText`).
    yield* store(code, providerText(parsed.notices), door)
    return parsed.answer
  }).pipe(Effect.withSpan("tender.provider.notification"))

/**
 * Run the apply task of a stored notice: its writes are the object's move (or none) and the
 * notice's new status, committed by the worker with the task's completion. When a concurrent
 * change moved what it read, that commit is refused and the task runs again at once, deciding
 * afresh. A notice already applied is left alone, so a second run changes nothing. A notice that
 * can never apply ends `unusable` with the reason, never `received` for ever: its stored form is
 * not one this version reads, applying it fails other than by an outage, or an outage outlasts
 * `Task.maxAttempts` attempts (internal/notificationEnd.ts).
 *
 * @since 0.1.0
 */
export const run = (task: Task.TaskRecord): Effect.Effect<Task.Outcome, StorageError, Storage | IdGenerator | ProviderRegistry | Merchants> =>
  Effect.gen(function*() {
    const found = yield* Effect.either((yield* Storage).find(table, task.resourceId))
    const now = yield* Clock.currentTimeMillis
    if (Either.isLeft(found)) {
      // Without its record nothing can be written on the notice: tried again on the schedule, and
      // past the last attempt it waits, not counted, until the store reads it (never given up
      // with the notice left received).
      if (task.attempts < Task.maxAttempts) return yield* Effect.fail(found.left)
      return { _tag: "Defer", dueAt: now + Duration.toMillis(Task.backoff(task.attempts)) } satisfies Task.Outcome
    }
    if (Option.isNone(found.right) || found.right.value.status !== "received") return { _tag: "Done", writes: [] } satisfies Task.Outcome
    const record = found.right.value
    // Stored by another version, or its row edited: a notice this version does not read applies nothing.
    if (!isNotice(record.notice)) return ended(record, unusable("the stored notice is not one this version reads"), now)
    const attempt = yield* Effect.exit(Effect.gen(function*() {
      // A payment of an attempt whose answer was lost is that attempt's, not unmatched (ProviderAttempt).
      const ofAttempt = yield* applyToAttempt(record)
      if (ofAttempt !== undefined) return ofAttempt
      // D13: a notice moves only the objects of the account whose door it came in at.
      const foreign = yield* otherAccount(record)
      return foreign === undefined
        ? yield* apply(record.provider, record.notice)
        : { status: "unmatched" as const, resourceId: null, detail: foreign, writes: [] }
    }))
    if (Exit.isSuccess(attempt)) {
      if (attempt.value === "NoIntent") return Task.retry(task, now, "a payment of an attempt whose payment intent is not stored yet")
      return ended(record, attempt.value, now)
    }
    const failure = fault(attempt.cause)
    return failure === undefined ? yield* Effect.failCause(attempt.cause) : afterFault(task, record, failure, now, attempt.cause)
  })

/**
 * What a notice's apply task commits instead when the store refused its writes (a
 * `StorageFailure`, not an outage: a value it does not keep, a constraint): the notice, read
 * afresh, ends `unusable` with the store's reason, so the task is done rather than claimed again
 * for ever. A notice no longer `received` is left alone.
 *
 * @since 0.1.0
 */
export const refused = (task: Task.TaskRecord, error: StorageError): Effect.Effect<Task.Outcome, StorageError, Storage> =>
  Effect.gen(function*() {
    const found = yield* (yield* Storage).find(table, task.resourceId)
    if (Option.isNone(found) || found.value.status !== "received") return { _tag: "Done", writes: [] } satisfies Task.Outcome
    return ended(found.value, unusable(`the store refused its writes (${error._tag}: ${error.message})`), yield* Clock.currentTimeMillis)
  })
