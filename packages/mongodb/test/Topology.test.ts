import { describe, expect, it } from "@effect/vitest"
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
