/**
 * Driver failures folded into the core's storage errors, told apart by error class, server
 * code and error label, never by message text. Nothing a driver call throws escapes as a defect.
 */
import { StorageError } from "@tender/core"
import { Effect } from "effect"

/** Server codes of a duplicate key: 11000 (and its legacy forms 11001 and 12582). */
export const duplicateKeyCodes: ReadonlySet<number> = new Set([11000, 11001, 12582])

/**
 * Server codes that mean the deployment cannot serve the operation for now: the node is not
 * (or no longer) primary, is starting, stepping down or shutting down, or the network or a time
 * limit failed. The driver's retryable-read codes, plus write concern and time-limit failures.
 */
export const unavailableCodes: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed / WriteConcernTimeout
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436 // NotPrimaryOrSecondary
])

/**
 * Driver error classes (by name, so a second copy of the driver in the host's tree is told
 * apart the same way) that mean the server cannot be reached for now.
 */
export const unavailableErrorNames: ReadonlySet<string> = new Set([
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoPoolClearedError",
  "PoolClearedOnNetworkError",
  "MongoPoolClosedError",
  "MongoServerSelectionError",
  "MongoTopologyClosedError",
  "MongoClientClosedError",
  "MongoNotConnectedError",
  "MongoOperationTimeoutError",
  "MongoWaitQueueTimeoutError",
  "MongoServerClosedError",
  "MongoStalePrimaryError"
])

/** Labels the server or driver sets on errors that a retry may get past. */
export const unavailableLabels: ReadonlyArray<string> = [
  "RetryableWriteError",
  "TransientTransactionError",
  "UnknownTransactionCommitResult",
  "SystemOverloadedError",
  "ResetPool"
]

/** Node's socket error codes, on an error's `cause`. */
const socketCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN"
])

/** The server code of an error, as a number (a BSON Int32 when the host turned `promoteValues` off). */
export const codeOf = (error: unknown): number | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined
  const code = Number(error.code)
  return Number.isInteger(code) ? code : undefined
}

/** Whether the error carries a label (`MongoError.hasErrorLabel`, or the `errorLabels` of a plain server reply). */
export const hasLabel = (error: unknown, label: string): boolean => {
  if (typeof error !== "object" || error === null) return false
  if ("hasErrorLabel" in error && typeof error.hasErrorLabel === "function") {
    return (error as { hasErrorLabel: (l: string) => boolean }).hasErrorLabel(label)
  }
  return "errorLabels" in error && Array.isArray(error.errorLabels) && error.errorLabels.includes(label)
}

/** The error's class names, most derived first (a subclass of MongoNetworkError counts as one). */
const namesOf = (error: object): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (let p: unknown = error; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const ctor = (p as { constructor?: { name?: unknown } }).constructor
    if (typeof ctor?.name === "string") names.push(ctor.name)
  }
  if ("name" in error && typeof error.name === "string") names.push(error.name)
  return names
}

/** How a failure is classed, before it is wrapped. */
export type Kind = "unique" | "unavailable" | "failure"

/** The class of a thrown value: duplicate key, unavailable for now, or anything else. */
export const classify = (error: unknown): Kind => {
  const code = codeOf(error)
  if (code !== undefined && duplicateKeyCodes.has(code)) return "unique"
  if (typeof error !== "object" || error === null) return "failure"
  if (code !== undefined && unavailableCodes.has(code)) return "unavailable"
  if (namesOf(error).some((n) => unavailableErrorNames.has(n))) return "unavailable"
  if (unavailableLabels.some((l) => hasLabel(error, l))) return "unavailable"
  const cause = "cause" in error ? error.cause : undefined
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" && socketCodes.has(cause.code)) {
    return "unavailable"
  }
  return "failure"
}

/** A thrown value as the core's storage error; a storage error already is one. */
export const fold = (operation: string) => (error: unknown): StorageError.StorageError => {
  if (StorageError.isStorageError(error)) return error
  const message = `mongodb: ${operation} failed`
  switch (classify(error)) {
    case "unique":
      return new StorageError.UniqueViolation({ message, cause: error })
    case "unavailable":
      return new StorageError.StorageUnavailable({ message, cause: error })
    case "failure":
      return new StorageError.StorageFailure({ message, cause: error })
  }
}

/** A driver call as an Effect, its failure folded into the core's storage errors. */
export const callDriver = <A>(operation: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fold(operation) })
