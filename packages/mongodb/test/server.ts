/**
 * The test server: MONGODB_URL, when set. No MongoDB server can run on this project's machines
 * and CI, so without it the tests that need one are skipped with a line saying how to run them
 * (unlike PostgreSQL, that is not a failure under CI=true). Each run uses a database of its own,
 * dropped when the run's layer closes.
 */
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { MongoStorage } from "../src/index.js"

/** The connection string of the test server, if one is given. */
export const url: string | undefined = process.env["MONGODB_URL"] === "" ? undefined : process.env["MONGODB_URL"]

/** The skipped case's name: why, and the one command that runs these tests. */
export const skipName = "skipped: MONGODB_URL is not set; run: docker run -d --name tender-mongo -p 27017:27017 mongo:7 --replSet rs0 && " +
  "docker exec tender-mongo mongosh --eval 'rs.initiate()' && " +
  "MONGODB_URL=mongodb://127.0.0.1:27017/?directConnection=true npm test"

/** Register `cases` when there is a server, else one visible skipped case under `name`. */
export const withServer = (name: string, cases: (url: string) => void): void => {
  if (url === undefined) {
    // The default reporter does not name skipped cases: say it once, as the PostgreSQL tests do.
    process.stderr.write(`[@tender/mongodb] ${name} ${skipName}\n`)
    describe(name, () => {
      it.skip(skipName, () => {})
    })
  } else {
    cases(url)
  }
}

/** A database name no other run uses. */
export const freshDatabase = () => `tender_test_${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`

/** A connected client on the test server, whose scratch database is dropped before the client closes. */
export const scratchClient = (url: string, database: string) =>
  Layer.scopedDiscard(
    Effect.flatMap(MongoStorage.Client, (client) => Effect.addFinalizer(() => Effect.orDie(Effect.tryPromise(() => client.db(database).dropDatabase()))))
  ).pipe(Layer.provideMerge(MongoStorage.layerClientFromUrl(url)))
