import { describe, expect, it } from "@effect/vitest"
import { MongoNetworkError, MongoServerSelectionError } from "mongodb"
import { createRequire } from "node:module"
import * as Topology from "../src/internal/topology.js"
import { classify, standaloneMessage, supportsChangeStreams, supportsTransactions } from "../src/internal/topology.js"

describe("topology: what the deployment offers", () => {
  it("a hello with setName is a replica set (a single node is enough): transactions and change streams", () => {
    const t = classify({ isWritablePrimary: true, setName: "rs0", hosts: ["127.0.0.1:27017"], maxWireVersion: 21 })
    expect(t).toBe("replica-set")
    expect(supportsTransactions(t)).toBe(true)
    expect(supportsChangeStreams(t)).toBe(true)
  })

  it("a mongos is a sharded cluster: transactions and change streams", () => {
    expect(classify({ isWritablePrimary: true, msg: "isdbgrid" })).toBe("sharded")
    expect(supportsTransactions("sharded")).toBe(true)
  })

  it("a hello without setName is a standalone server: no transactions", () => {
    expect(classify({ isWritablePrimary: true, maxWireVersion: 21 })).toBe("standalone")
    expect(classify({ isWritablePrimary: true, setName: "" })).toBe("standalone")
    expect(supportsTransactions("standalone")).toBe(false)
    expect(supportsChangeStreams("standalone")).toBe(false)
  })

  it("a standalone server is refused with one message that says why and how to fix it", () => {
    const message = standaloneMessage("shop")
    expect(message).toContain(`database "shop"`)
    expect(message).toContain("standalone")
    expect(message).toContain("replica set")
    expect(message).toContain("--replSet rs0")
    expect(message).toContain("rs.initiate()")
    expect(message).toContain("directConnection=true")
    expect(message.split("\n")).toHaveLength(1)
  })
})

describe("first contact: a replica set whose members cannot be reached", () => {
  // The description the driver's server selection gives up with (its own classes, as it builds them).
  const { ServerDescription } = createRequire(import.meta.url)("mongodb/lib/sdam/server_description.js")
  const { TopologyDescription } = createRequire(import.meta.url)("mongodb/lib/sdam/topology_description.js")
  const gaveUpOn = (type: string, address: string) => {
    const server = new ServerDescription(address, undefined, { error: new MongoNetworkError(`getaddrinfo ENOTFOUND ${address.split(":")[0]}`) })
    return new MongoServerSelectionError("Server selection timed out after 30000 ms", new TopologyDescription(type, new Map([[address, server]]), "rs0"))
  }

  it("a single-node replica set reached by a name it does not announce -> the cause named: its members, and directConnection=true", () => {
    const why = Topology.unreachableSet(gaveUpOn("ReplicaSetNoPrimary", "3f2a9c1d7e4b:27017"))
    expect(why).toContain("replica set \"rs0\"")
    expect(why).toContain("3f2a9c1d7e4b:27017 (getaddrinfo ENOTFOUND 3f2a9c1d7e4b)")
    expect(why).toContain("?directConnection=true")
  })

  it("any other failure of the first hello is left as the driver says it", () => {
    expect(Topology.unreachableSet(gaveUpOn("Unknown", "127.0.0.1:27017"))).toBeUndefined()
    expect(Topology.unreachableSet(new Error("boom"))).toBeUndefined()
  })
})
