import { describe, expect, it } from "@effect/vitest"
import { MongoClient, type MongoClientOptions } from "mongodb"
import { MongoStorage } from "../src/index.js"

describe("MongoStorage: options", () => {
  it("the database of a connection string, when it names one", () => {
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017/shop?directConnection=true")).toBe("shop")
    expect(MongoStorage.databaseOfUrl("mongodb+srv://u:p@cluster0.example.net/pay%20ments?retryWrites=true")).toBe("pay ments")
    expect(MongoStorage.databaseOfUrl("mongodb://a:1,b:2,c:3/orders")).toBe("orders")
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017/?directConnection=true")).toBeUndefined()
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017")).toBeUndefined()
  })

  // Each client sets every BSON option the other way from what Tender decodes with, and reads
  // from secondaries; the driver refuses BigInt without Long promotion, hence two clients.
  const hostile: ReadonlyArray<MongoClientOptions> = [
    { readPreference: "secondary", promoteValues: false, promoteLongs: false, promoteBuffers: true, bsonRegExp: true, ignoreUndefined: true, raw: true },
    { readPreference: "nearest", useBigInt64: true }
  ]

  it("Tender's Db handle writes with w: majority (bounded by wtimeoutMS) and reads majority-committed data, whatever the host's client says", async () => {
    // A primary-secondary-arbiter set defaults to w: 1, and a URL may say so: an acknowledged
    // claim could roll back on failover. Never connected: the driver resolves the handle's concerns without a server.
    for (const url of ["mongodb://127.0.0.1:1/?w=1&readConcernLevel=local", "mongodb://127.0.0.1:1/?w=0&journal=false"]) {
      const client = new MongoClient(url)
      const handle = client.db("shop", MongoStorage.dbOptions).collection("tender_idempotency_keys")
      expect(handle.writeConcern?.w, url).toBe("majority")
      expect(handle.writeConcern?.wtimeoutMS, url).toBe(10_000)
      expect(handle.readConcern?.level, url).toBe("majority")
      await client.close()
    }
  })

  it("Tender's Db handle reads from the primary, numbers promoted, no raw BSON nor BigInt, whatever the host's client options", async () => {
    for (const options of hostile) {
      // Never connected: the driver resolves a handle's options without a server.
      const client = new MongoClient("mongodb://127.0.0.1:1", options)
      const handle = client.db("shop", MongoStorage.dbOptions).collection("tender_payment_intents")
      expect(handle.readPreference?.mode).toBe("primary")
      for (const [name, value] of Object.entries(options)) {
        if (name !== "readPreference") expect(handle.bsonOptions[name as keyof typeof handle.bsonOptions], name).toBe(!value)
      }
      await client.close()
    }
  })
})
