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
 * signalled the backend. It is what `pg`'s own `Client.cancel` sends, without its listeners.
 */
import { connect } from "node:net"

/** What a `pg` connection keeps of its server and of the key the server gave it (`pg` does not type the last two). */
export interface Backend {
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly processID?: number | null | undefined
  readonly secretKey?: number | null | undefined
}

/** The protocol's CancelRequest code, 1234 in the high 16 bits and 5678 in the low. */
const cancelRequestCode = 80877102

/**
 * Sends the CancelRequest of `backend`'s statement and calls `done(true)` once the server has
 * taken it (it closes the socket after signalling the backend), or `done(false)` when it could
 * not be sent (no key, the server unreachable, nothing within `millis`). Never throws: a failed
 * cancel is a cancel that did not happen, the caller decides what follows.
 *
 * @internal
 */
export const send = (backend: Backend, millis: number, done: (taken: boolean) => void): void => {
  const { host, port, processID, secretKey } = backend
  if (processID === null || processID === undefined || secretKey === null || secretKey === undefined) return done(false)
  let finished = false
  const finish = (taken: boolean) => {
    if (finished) return
    finished = true
    socket.destroy()
    done(taken)
  }
  // A host that is a directory is the server's Unix socket directory, as libpq and `pg` read it.
  const socket = host !== undefined && host.startsWith("/")
    ? connect(`${host}/.s.PGSQL.${port ?? 5432}`)
    : connect(port ?? 5432, host ?? "localhost")
  socket.setTimeout(millis, () => finish(false))
  socket.once("error", () => finish(false))
  socket.once("connect", () => {
    const request = Buffer.allocUnsafe(16)
    request.writeInt32BE(16, 0)
    request.writeInt32BE(cancelRequestCode, 4)
    request.writeInt32BE(processID, 8)
    request.writeInt32BE(secretKey, 12)
    socket.end(request)
  })
  // The server answers nothing: it closes the socket once the backend is signalled.
  socket.on("data", () => {})
  socket.once("close", (hadError) => finish(!hadError))
}
