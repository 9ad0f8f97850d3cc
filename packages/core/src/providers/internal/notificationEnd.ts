/**
 * How a stored provider notice's apply task ends (D11): with the status applying it decided, or
 * `unusable` when it can never apply. A fault that passes (the store unreachable for now) is
 * tried again on the task's schedule; a fault no retry mends (a defect in the rules, a store that
 * refuses what applying it reads or writes, a stored form this version does not read) ends the
 * notice `unusable` at once, and so does a passing fault still there after `Task.maxAttempts`
 * attempts. Either way it is logged and counted once, when the notice is ended, never left
 * `received` with its task retrying for ever (docs/reliability.md, "Provider notices that cannot
 * apply").
 */
import { Cause, Effect, Option, Schema } from "effect"
import * as Telemetry from "../../observability/Telemetry.js"
import { Write } from "../../storage/Storage.js"
import type { StorageError } from "../../storage/StorageError.js"
import * as Task from "../../storage/Task.js"
import type { NotificationRecord } from "../ProviderNotification.js"
import { ProviderNotice, table } from "../ProviderNotification.js"
import type { Applied } from "./notificationApply.js"

/** Whether a stored notice is one this version reads. */
export const isNotice = Schema.is(ProviderNotice)

/** Text no store keeps (U+0000) escaped: a detail quotes what the provider sent, or a defect's message. */
const storable = (text: string) => text.replaceAll("\u0000", "\\u0000")

/** A notice that can never apply, and why. */
export const unusable = (reason: string): Applied => ({ status: "unusable", resourceId: null, detail: reason, writes: [] })

/**
 * What a failed attempt at applying a notice says: `undefined` when it was interrupted (the
 * workers stopping: not the notice's fault), else whether it is permanent, and why, in words for
 * the host. Only an outage passes (`StorageUnavailable`; a lost race, `StaleVersion`, is decided
 * afresh): a `StorageFailure` is the store refusing what was sent (a constraint, text it does not
 * keep), the same on every attempt, and a defect is a fault in the rules, the same for this notice
 * until the code changes.
 */
export const fault = (cause: Cause.Cause<StorageError>): { readonly permanent: boolean; readonly reason: string } | undefined => {
  if (Cause.isInterruptedOnly(cause)) return undefined
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value
    const permanent = e._tag !== "StorageUnavailable" && e._tag !== "StaleVersion"
    return { permanent, reason: `${permanent ? "the store refused it" : "the store was unavailable"} (${e._tag}: ${e.message})` }
  }
  const defect = Cause.dieOption(cause)
  const text = Option.isSome(defect) ? (defect.value instanceof Error ? `${defect.value.name}: ${defect.value.message}` : String(defect.value)) : "unknown"
  return { permanent: true, reason: `applying it failed with a defect (${text.slice(0, 300)})` }
}

const count = (provider: string, notice: string, outcome: string) => Telemetry.record(Telemetry.metrics.providerNotices, 1, { provider, notice, outcome })

/**
 * The task's outcome that ends `record` as `applied` decided: its writes and the notice's new
 * status in one commit with the task's completion; counted (and an unusable notice logged, with
 * `cause` when a defect made it so) once that commit applied.
 */
export const ended = (record: NotificationRecord, applied: Applied, now: number, cause?: Cause.Cause<unknown>): Task.Outcome => ({
  _tag: "Done",
  writes: [
    ...applied.writes,
    Write.update(table, {
      ...record,
      status: applied.status,
      resourceId: applied.resourceId,
      detail: applied.detail === null ? null : storable(applied.detail),
      updatedAt: Math.max(now, record.updatedAt),
      version: record.version + 1
    }, record.version)
  ],
  after: Effect.zipRight(
    applied.status !== "unusable" ? Effect.void : Effect.logError(
      `tender: provider notice ${record.id} (${record.provider} event ${storable(record.eventId)}) is unusable and was not applied: ${applied.detail}`,
      ...(cause === undefined || !Cause.isDie(cause) ? [] : [cause])
    ),
    // A stored form this version does not read is counted as `unknown`: its tag is anyone's text.
    count(record.provider, isNotice(record.notice) ? record.notice._tag : "unknown", applied.status)
  )
})

/**
 * After a failed attempt: again on the task's schedule while the fault may pass and attempts
 * remain, else the notice ends `unusable`.
 */
export const afterFault = (
  task: Task.TaskRecord,
  record: NotificationRecord,
  failure: { readonly permanent: boolean; readonly reason: string },
  now: number,
  cause: Cause.Cause<unknown>
): Task.Outcome => {
  if (!failure.permanent && task.attempts < Task.maxAttempts) return Task.retry(task, now, failure.reason)
  const reason = failure.permanent ? failure.reason : `still failing after ${task.attempts} attempts: ${failure.reason}`
  return ended(record, unusable(reason), now, cause)
}
