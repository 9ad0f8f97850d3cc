import { describe, expect, it } from "@effect/vitest"
import { StorageError } from "@tender/core"
import {
  BSON,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError
} from "mongodb"
import { classify, fold } from "../src/internal/errors.js"
import { serverError } from "./fake.js"

const tagOf = (error: unknown) => fold("test")(error)._tag

describe("errors: driver failures as the core's storage errors", () => {
  it("a duplicate key (code 11000) is a UniqueViolation, with the driver error as its cause", () => {
    const duplicate = serverError({ code: 11000, codeName: "DuplicateKey", keyPattern: { id: 1 }, keyValue: { id: "dord_1" } })
    const folded = fold("commit")(duplicate)
    expect(folded).toBeInstanceOf(StorageError.UniqueViolation)
    expect(folded.cause).toBe(duplicate)
    expect(folded.message).toBe("mongodb: commit failed")
    // The legacy codes, and a code read as a BSON Int32 when the host turned promoteValues off.
    expect(tagOf(serverError({ code: 11001 }))).toBe("UniqueViolation")
    expect(tagOf(serverError({ code: 12582 }))).toBe("UniqueViolation")
    expect(tagOf(serverError({ code: new BSON.Int32(11000) }))).toBe("UniqueViolation")
  })

  it("network failures and timeouts are StorageUnavailable", () => {
    expect(tagOf(new MongoNetworkError("connection 1 to 127.0.0.1:27017 closed"))).toBe("StorageUnavailable")
    expect(tagOf(new MongoNetworkTimeoutError("connection timed out"))).toBe("StorageUnavailable")
    expect(tagOf(new MongoServerSelectionError("Server selection timed out after 30000 ms", { error: undefined } as never)))
      .toBe("StorageUnavailable")
    expect(tagOf(new MongoTopologyClosedError())).toBe("StorageUnavailable")
    expect(tagOf(new MongoNotConnectedError("not connected"))).toBe("StorageUnavailable")
  })

  it("a node that is not (or no longer) primary, or shutting down, is StorageUnavailable", () => {
    for (
      const [code, codeName] of [
        [10107, "NotWritablePrimary"],
        [13435, "NotPrimaryNoSecondaryOk"],
        [13436, "NotPrimaryOrSecondary"],
        [189, "PrimarySteppedDown"],
        [91, "ShutdownInProgress"],
        [11600, "InterruptedAtShutdown"],
        [11602, "InterruptedDueToReplStateChange"],
        [6, "HostUnreachable"],
        [89, "NetworkTimeout"],
        [50, "MaxTimeMSExpired"],
        [262, "ExceededTimeLimit"]
      ] as const
    ) {
      expect(tagOf(serverError({ code, codeName })), codeName).toBe("StorageUnavailable")
    }
  })

  it("an error labelled retryable or transient is StorageUnavailable", () => {
    expect(tagOf(serverError({ code: 112, codeName: "WriteConflict", errorLabels: ["TransientTransactionError"] }))).toBe("StorageUnavailable")
    expect(tagOf(serverError({ code: 999, errorLabels: ["RetryableWriteError"] }))).toBe("StorageUnavailable")
    expect(tagOf(serverError({ code: 999, errorLabels: ["UnknownTransactionCommitResult"] }))).toBe("StorageUnavailable")
  })

  it("a write concern that timed out is StorageUnavailable", () => {
    const wc = new MongoWriteConcernError(
      { ok: 1, writeConcernError: { code: 64, codeName: "WriteConcernFailed", errmsg: "waiting for replication timed out" } } as never
    )
    expect(tagOf(wc)).toBe("StorageUnavailable")
  })

  it("a socket error under any error is StorageUnavailable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:27017"), { code: "ECONNREFUSED" })
    expect(tagOf(new Error("wrapped", { cause: refused }))).toBe("StorageUnavailable")
  })

  it("anything else is a StorageFailure, never a defect", () => {
    expect(tagOf(serverError({ code: 2, codeName: "BadValue" }))).toBe("StorageFailure")
    expect(tagOf(serverError({ code: 121, codeName: "DocumentValidationFailure" }))).toBe("StorageFailure")
    expect(tagOf(serverError({ code: 85, codeName: "IndexOptionsConflict" }))).toBe("StorageFailure")
    expect(tagOf(new TypeError("x is not a function"))).toBe("StorageFailure")
    expect(tagOf("a thrown string")).toBe("StorageFailure")
    expect(tagOf(undefined)).toBe("StorageFailure")
    expect(classify(null)).toBe("failure")
  })

  it("a storage error passes through unchanged", () => {
    const stale = new StorageError.StaleVersion({ message: "stale" })
    expect(fold("commit")(stale)).toBe(stale)
  })
})
