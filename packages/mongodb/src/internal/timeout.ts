/**
 * The operation timeout (docs/mongodb.md, "Timeouts"): every call Tender makes to MongoDB answers
 * within a bound, or fails as `StorageUnavailable` (a 503 with Retry-After), as PostgreSQL's
 * statement timeout does. The driver 7.9's client-side `timeoutMS` is deprecated there and has no
 * effect, so the bound is core's `StorageTimeout.bound`, which every adapter shares. The server side
 * is bounded too: `wtimeoutMS` on the majority write concern, `maxCommitTimeMS` on commits
 * (`commit.ts`), and `maxTimeMS` on reads.
 *
 * A timed-out write may still land; the same fences as after a lost connection make that safe
 * (a commit completes the request's key only while its claim holds it).
 */
import { StorageError, StorageTimeout } from "@tender/core"
import type { Duration } from "effect"

/** The bound when the host sets none (`StorageTimeout.defaultTimeout`). */
export const defaultOperationTimeout: Duration.Duration = StorageTimeout.defaultTimeout

/** The bound in whole milliseconds (`StorageTimeout.millisOf`). */
export const millisOf = (input: Duration.DurationInput | undefined): number => StorageTimeout.millisOf(input, "operationTimeout")

/** `self` within `millis`, or `StorageUnavailable` at once (`StorageTimeout.bound`). */
export const bound = (millis: number) =>
  StorageTimeout.bound(
    millis,
    (operation) => new StorageError.StorageUnavailable({ message: `mongodb: ${operation} did not finish within the operation timeout of ${millis} ms` })
  )
