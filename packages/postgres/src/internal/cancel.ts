/**
 * Stopping a statement on the server without a connection of the pool (docs/postgres.md, "How a
 * statement runs").
 *
 * `SELECT pg_cancel_backend(pid)` is a statement: it needs a connection of the pool whose
 * connection it would free. When every connection of the pool holds a statement past its
 * deadline (a slow or locked table: exactly when deadlines fire), every cancel waited for a
 * connection that only a cancel could free, until the 5 s fallback closed them all. PostgreSQL's
 * own CancelRequest (protocol "Canceling Requests in Progress") needs no session: a socket of
 * its own to the server, 16 bytes naming the backend by the process id and the secret key the
 * server gave that connection at its start, and the server closes the socket once it has
 * signalled the backend. The bytes are the ones `pg`'s own `Client.cancel` sends, in plain text
 * as it sends them; unlike it, the socket goes to the connection's host and port (or Unix socket)
 * directly, so a pool that connects through a `stream` of its own (a connector, a tunnel) cancels
 * through the pool instead (direct.ts).
 */
import { connect, type Socket } from "node:net"
import type { Backend } from "./pgInternals.js"

/** A connection's server and key, read through the `pg` shim. */
export type { Backend } from "./pgInternals.js"

/** The protocol's CancelRequest code, 1234 in the high 16 bits and 5678 in the low. */
const cancelRequestCode = 80877102

/**
 * What became of a CancelRequest: `"taken"`, the server closed the socket after reading it (it
 * signals the backend before it closes); `"not sent"`, nothing reached the server (no key, no
 * connection); `"unknown"`, the 16 bytes were written but the server's close did not come (an
 * error or `millis` of silence after them), so it may still act on them.
 *
 * @internal
 */
export type Outcome = "taken" | "not sent" | "unknown"

/**
 * Sends the CancelRequest of `backend`'s statement and calls `done` once with its outcome, at the
 * latest after `millis`. Never throws: a cancel is best effort, and the caller decides what
 * follows (direct.ts closes a connection whose cancel may still arrive).
 *
 * @internal
 */
export const send = (backend: Backend, millis: number, done: (outcome: Outcome) => void): void => {
  const { host, port, processID, secretKey } = backend
  if (processID === null || processID === undefined || secretKey === null || secretKey === undefined) return done("not sent")
  let written = false
  let finished = false
  let socket: Socket
  const finish = (outcome: Outcome) => {
    if (finished) return
    finished = true
    socket.destroy()
    done(outcome)
  }
  try {
    // A host that is a directory is the server's Unix socket directory, as libpq and `pg` read it.
    socket = host !== undefined && host.startsWith("/")
      ? connect(`${host}/.s.PGSQL.${port ?? 5432}`)
      : connect(port ?? 5432, host ?? "localhost")
  } catch {
    // `connect` throws at once on what it cannot dial at all (a port out of range).
    return done("not sent")
  }
  // Shutting down, the host's process does not wait for a cancel.
  socket.unref()
  socket.setTimeout(millis, () => finish(written ? "unknown" : "not sent"))
  socket.on("error", () => finish(written ? "unknown" : "not sent"))
  socket.once("connect", () => {
    const request = Buffer.allocUnsafe(16)
    request.writeInt32BE(16, 0)
    request.writeInt32BE(cancelRequestCode, 4)
    request.writeInt32BE(processID, 8)
    request.writeInt32BE(secretKey, 12)
    written = true
    socket.end(request)
  })
  // The server answers nothing: it closes the socket once the backend is signalled.
  socket.on("data", () => {})
  socket.once("close", (hadError) => finish(!written ? "not sent" : hadError ? "unknown" : "taken"))
}
