/**
 * Every demo a test spawns has a store of its own: memory unless its caller names a database,
 * and then a table prefix of its own that its file drops. The suite's `DATABASE_URL` (the one
 * `DATABASE_URL=… npm test` documents) never reaches a demo under the default prefix `tender_`,
 * where every demo of the run would share tables, claim one another's tasks and leave them behind.
 */
import { demoEnvironment, launchDemo } from "@tender/repo-test-support"
import { assert, describe, it } from "vitest"

const suite = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
  MONGODB_URL: "mongodb://127.0.0.1:27017/tender",
  TENDER_TABLE_PREFIX: "tender_",
  PATH: "/usr/bin"
}

describe("launchDemo: a store of its own for every spawned demo", () => {
  it("a demo spawned without a store runs in memory: it inherits neither the suite's DATABASE_URL, nor MONGODB_URL, nor a table prefix", () => {
    const env = demoEnvironment({ TENDER_SEED: "/tmp/seed.json" }, 4000, suite)
    assert.deepStrictEqual([env["DATABASE_URL"], env["MONGODB_URL"], env["TENDER_TABLE_PREFIX"]], [undefined, undefined, undefined])
    assert.deepStrictEqual([env["PATH"], env["PORT"], env["TENDER_SEED"]], ["/usr/bin", "4000", "/tmp/seed.json"])
  })

  it("a demo its caller puts on a database keeps it, with the caller's own table prefix", () => {
    const env = demoEnvironment({ DATABASE_URL: suite.DATABASE_URL, TENDER_TABLE_PREFIX: "t_own_" }, 4000, suite)
    assert.deepStrictEqual([env["DATABASE_URL"], env["TENDER_TABLE_PREFIX"]], [suite.DATABASE_URL, "t_own_"])
  })

  it("a demo put on a database under the default prefix is refused before it is spawned", async () => {
    const refused = await launchDemo({ DATABASE_URL: suite.DATABASE_URL }).then(() => undefined, (e: Error) => e.message)
    assert.strictEqual(
      refused,
      "launchDemo: a demo on a database needs a TENDER_TABLE_PREFIX of its own (freshTablePrefix) that its file drops; the default prefix tender_ would be shared with every other demo of the run"
    )
  })
})
