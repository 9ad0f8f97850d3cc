/** Driver failures folded into the core's `StorageError`. */
import type { SqlError } from "@effect/sql/SqlError"
import { Errors } from "@tender/core"

const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** A `SqlError` as the core's storage error: unique violations (23505) are told apart. */
export const fold = (operation: string) => (error: SqlError): Errors.StorageError =>
  new Errors.StorageError({
    message: `postgres: ${operation} failed`,
    cause: error,
    reason: codeOf(error.cause) === "23505" ? "UniqueViolation" : undefined
  })
