/**
 * A lingering close for `node:http` (docs/upstream.md, "A lingering close"). When Node closes a connection after an answer
 * (`Connection: close`, or an answer given before the body was read: 401, 404, 405, 413), any
 * request bytes still unread make the kernel reset the connection instead of closing it, and a
 * reset throws away the answer the client had not read yet: the crash fuzzer saw 22 of 40 405s
 * to a 2 MB body lost that way. Here the socket ends its side (the answer and a FIN go out),
 * then reads and drops what the client still sends until it closes or `lingerMillis` pass, and
 * only then is destroyed. Installed by `ClientErrors.install`.
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"

/** How long a closing connection goes on reading a client's leftover body: bounded, so a client cannot hold it. */
export const lingerMillis = 2_000

const closing = new WeakSet<object>()

/** Whether `socket` is already closing lingeringly: its answer is out, what it reads is dropped. */
export const isClosing = (socket: object): boolean => closing.has(socket)

/** End `socket` (after `last`, if given), go on reading until the client closes or `lingerMillis` pass, then destroy it. */
export const close = (socket: Socket, last?: string): void => {
  if (closing.has(socket)) return
  closing.add(socket)
  if (last === undefined) socket.end()
  else socket.end(last)
  const timer = setTimeout(() => socket.destroy(), lingerMillis)
  timer.unref()
  socket.once("end", () => socket.destroy())
  socket.once("close", () => clearTimeout(timer))
  // Node's parser may have paused the socket on a body nobody read: read on, to drop it.
  socket.resume()
}

const lingering = (socket: Socket) => {
  const destroySoon = socket.destroySoon.bind(socket)
  socket.destroySoon = () => (socket.destroyed || socket.readableEnded ? destroySoon() : close(socket))
}

/** Give every connection of `server` a lingering close. */
export const install = (server: Server): void => {
  server.on("connection", lingering)
}
