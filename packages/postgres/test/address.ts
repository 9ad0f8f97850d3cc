/**
 * One address in front of PostgreSQL that a test moves from server to server, as a virtual IP
 * or a DNS name moves in a failover, and can freeze, as a server that vanished without a word
 * (a host powered off, a network partition): new connections are taken and never answered.
 * Not a test file itself.
 */
import { connect, createServer, type Server, type Socket } from "node:net"

export interface Address {
  readonly port: number
  /**
   * Point at `port`: every open connection is reset (they led to the old server, and a moved
   * virtual IP answers them with a reset), new ones go to `port`. Connections taken while frozen
   * stay as they are: nothing answers them, ever, as with a name whose old address went dark.
   */
  readonly moveTo: (port: number) => void
  /** Reset every open connection, then take new ones and pass nothing, until the next `moveTo`. */
  readonly freeze: () => void
  readonly close: () => Promise<void>
}

/** An address on a free loopback port, passing connections to `initial`. */
export const address = async (initial: number): Promise<Address> => {
  let target: number | "frozen" = initial
  const open = new Set<Socket>()
  const dark = new Set<Socket>()
  const server: Server = createServer((client) => {
    client.on("error", () => {})
    if (target === "frozen") {
      dark.add(client)
      client.on("close", () => dark.delete(client))
      return
    }
    const upstream = connect(target, "127.0.0.1")
    open.add(client)
    client.on("close", () => {
      open.delete(client)
      upstream.destroy()
    })
    // A refused upstream (a killed server) closes the client's connection, as a dead host's does.
    upstream.on("error", () => client.destroy())
    upstream.on("close", () => client.destroy())
    client.on("error", () => upstream.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const bound = server.address()
  if (typeof bound !== "object" || bound === null) throw new Error("the address has no port")
  const reset = () => {
    for (const socket of open) socket.resetAndDestroy()
    open.clear()
  }
  return {
    port: bound.port,
    moveTo: (port) => {
      target = port
      reset()
    },
    freeze: () => {
      target = "frozen"
      reset()
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const socket of [...open, ...dark]) socket.destroy()
        server.close(() => ok())
      })
  }
}
