import { StorageContract } from "@tender/testing"
import { Layer } from "effect"
import { MongoStorage } from "../src/index.js"
import { freshDatabase, scratchClient, withServer } from "./server.js"

withServer("storage contract: mongodb", (url) => {
  const database = freshDatabase()
  // The suite drives time from 2026-11-22 onwards, whatever the wall clock says: the server's TTL
  // monitor would delete its keys under it (they expire by the suite's clock, not the server's).
  StorageContract.suite(
    "mongodb",
    MongoStorage.layerClient({ database, expireKeys: false }).pipe(Layer.provideMerge(scratchClient(url, database)))
  )
})
