/** Driver failures folded into the core's storage errors, told apart by SQLSTATE and socket codes, never by message text. */
import type { SqlError } from "@effect/sql/SqlError"
import { StorageError } from "@tender/core"

/** The driver error's `code`: a SQLSTATE, or a Node socket error code. */
export const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** The failures that mean the server cannot be reached for now, not that the statement was wrong. */
const unavailable = (code: string | undefined): boolean =>
  code !== undefined && (
    // Class 08: connection exception; 57P01-57P03: the server is shutting down, crashed, or starting;
    // 53300: too many connections; 57014: the statement was cancelled (statement_timeout, or the
    // cancel sent when the client-side statement timeout tripped).
    code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300" ||
    code === "57014" ||
    // 25006: a write refused because the server is read-only. During a failover that is a standby
    // still in recovery reached through the primary's address (a balancer or DNS name that
    // checks only that a server accepts connections, or moved before the promotion finished);
    // an operator's `default_transaction_read_only` is the same for as long as it is set. The
    // writes run once a primary answers there, so the request is retried, never failed as 500.
    code === "25006" ||
    // Node's socket errors.
    code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ETIMEDOUT" || code === "EPIPE" ||
    code === "EHOSTUNREACH" || code === "ENOTFOUND" || code === "EAI_AGAIN"
  )

/**
 * A connection the server closed without a word (its process killed, a proxy restarted): the
 * `pg` driver fails the statement with a plain `Error` that has no code at all, where every
 * answer of the server carries a SQLSTATE and every socket error a Node code. A `TypeError` or
 * other subclass without a code is a fault in the values sent, not the connection.
 */
const connectionLost = (cause: unknown): boolean => cause instanceof Error && Object.getPrototypeOf(cause) === Error.prototype && codeOf(cause) === undefined

/** A `SqlError` as the core's storage error. */
export const fold = (operation: string) => (error: SqlError): StorageError.StorageError => {
  const code = codeOf(error.cause)
  const message = `postgres: ${operation} failed`
  if (code === "23505") return new StorageError.UniqueViolation({ message, cause: error })
  if (unavailable(code) || connectionLost(error.cause)) return new StorageError.StorageUnavailable({ message, cause: error })
  return new StorageError.StorageFailure({ message, cause: error })
}

/**
 * Whether PostgreSQL can hold `text` at all: a text value never holds U+0000 (SQLSTATE 22021 for
 * a statement that sends one). A lookup by such a value matches no row, so it is answered as none
 * without a statement, rather than failing as a fault.
 */
export const storable = (text: string): boolean => !text.includes("\u0000")
