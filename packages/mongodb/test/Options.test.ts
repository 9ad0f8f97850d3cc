import { describe, expect, it } from "@effect/vitest"
import { MongoStorage } from "../src/index.js"

describe("MongoStorage: options", () => {
  it("the database of a connection string, when it names one", () => {
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017/shop?directConnection=true")).toBe("shop")
    expect(MongoStorage.databaseOfUrl("mongodb+srv://u:p@cluster0.example.net/pay%20ments?retryWrites=true")).toBe("pay ments")
    expect(MongoStorage.databaseOfUrl("mongodb://a:1,b:2,c:3/orders")).toBe("orders")
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017/?directConnection=true")).toBeUndefined()
    expect(MongoStorage.databaseOfUrl("mongodb://127.0.0.1:27017")).toBeUndefined()
  })

  it("Tender's Db handle reads from the primary with the BSON options its decoding expects", () => {
    expect(MongoStorage.dbOptions).toStrictEqual({
      readPreference: "primary",
      promoteValues: true,
      promoteLongs: true,
      promoteBuffers: false,
      useBigInt64: false,
      bsonRegExp: false,
      ignoreUndefined: false,
      raw: false
    })
  })
})
