import { describe, expect, it } from "@effect/vitest"
import { StorageError } from "@tender/core"
import { MongoNetworkError } from "mongodb"
import { fold } from "../src/internal/errors.js"
import { backoffMillis, decide, maxAttempts, maxCommits } from "../src/internal/transactions.js"
import { serverError } from "./fake.js"

const writeConflict = serverError({ code: 112, codeName: "WriteConflict", errorLabels: ["TransientTransactionError"] })
const unknownCommit = serverError({ code: 91, codeName: "ShutdownInProgress", errorLabels: ["UnknownTransactionCommitResult", "RetryableWriteError"] })

describe("transactions: retry decisions", () => {
  it("a transient transaction error in the body retries the whole transaction", () => {
    expect(decide(writeConflict, "body", 1)).toBe("retry-transaction")
    // As the storage error the body fails with: the decision reads its cause.
    expect(decide(fold("commit")(writeConflict), "body", 1)).toBe("retry-transaction")
  })

  it("a network error the driver labelled transient retries the transaction", () => {
    const lost = new MongoNetworkError("connection closed")
    lost.addErrorLabel("TransientTransactionError")
    expect(decide(lost, "body", 2)).toBe("retry-transaction")
  })

  it("retries are bounded", () => {
    expect(decide(writeConflict, "body", maxAttempts - 1)).toBe("retry-transaction")
    expect(decide(writeConflict, "body", maxAttempts)).toBe("fail")
    expect(decide(unknownCommit, "commit", maxCommits - 1)).toBe("retry-commit")
    expect(decide(unknownCommit, "commit", maxCommits)).toBe("fail")
  })

  it("an unknown commit result retries the commit alone", () => {
    expect(decide(unknownCommit, "commit", 1)).toBe("retry-commit")
  })

  it("an unknown commit result that ran out of its time limit (MaxTimeMSExpired) is not retried", () => {
    expect(decide(serverError({ code: 50, codeName: "MaxTimeMSExpired", errorLabels: ["UnknownTransactionCommitResult"] }), "commit", 1)).toBe("fail")
  })

  it("a transient error at commit retries the whole transaction", () => {
    expect(decide(writeConflict, "commit", 1)).toBe("retry-transaction")
  })

  it("the unknown-commit label means nothing outside a commit", () => {
    expect(decide(unknownCommit, "body", 1)).toBe("fail")
  })

  it("a precondition that did not hold, or a duplicate key, fails at once", () => {
    expect(decide(new StorageError.StaleVersion({ message: "stale" }), "body", 1)).toBe("fail")
    expect(decide(new StorageError.ClaimLost({ message: "lost" }), "body", 1)).toBe("fail")
    expect(decide(serverError({ code: 11000 }), "body", 1)).toBe("fail")
    expect(decide(new Error("boom"), "commit", 1)).toBe("fail")
  })

  it("the pause before a retry is the driver's jittered 5 ms × 1.5^n, at most 500 ms", () => {
    expect(backoffMillis(1, 1)).toBe(7.5)
    expect(backoffMillis(2, 0.5)).toBeCloseTo(5.625)
    expect(backoffMillis(30, 1)).toBe(500)
    expect(backoffMillis(5, 0)).toBe(0)
  })
})
