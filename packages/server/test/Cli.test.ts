/**
 * The `tender` command, each command run in-process as the executable runs it (`Cli.main`
 * with the process's streams), against the real PostgreSQL where it touches a database.
 */
import { testDatabaseUrl } from "@tender/repo-test-support"
import { prefixedPool } from "@tender/repo-test-support/embedding"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { main } from "../src/Cli.js"
import { createTender } from "../src/index.js"
import { seedPath } from "./fixtures.js"

const url = testDatabaseUrl
const { pool, fresh } = prefixedPool(3)

/** Run `tender …args` with `env`: exit code and what it wrote. */
const tender = async (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  let stdout = ""
  let stderr = ""
  const code = await main(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env })
  return { code, stdout, stderr }
}

const tables = async (prefix: string) =>
  (await pool.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE starts_with(tablename, $1)", [prefix])).rows.map((r) => r.name)

describe("tender migrate", () => {
  it("cli: migrates a fresh database from DATABASE_URL, then says it is up to date", async () => {
    const prefix = fresh()
    const first = await tender(["migrate", "--table-prefix", prefix], { DATABASE_URL: url })
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(first.stdout, /PostgreSQL: ran 0001_/)
    assert.include(await tables(prefix), `${prefix}payment_intents`)
    const again = await tender(["migrate", "--database-url", url, "--table-prefix", prefix])
    assert.deepStrictEqual([again.code, again.stdout], [0, "PostgreSQL: up to date, no migration to run\n"])
    // A library started with migrate: false then runs on the migrated schema.
    const started = await createTender({
      storage: { postgres: pool, tablePrefix: prefix },
      migrate: false,
      merchants: seedPath,
      publicUrl: "http://127.0.0.1/payments",
      checkoutSecret: "test-secret",
      logger: { info() {}, warn() {}, error() {} }
    })
    await started.close()
  })

  it("cli: without a database named it exits 2 with the usage", async () => {
    const result = await tender(["migrate"])
    assert.strictEqual(result.code, 2)
    assert.match(result.stderr, /DATABASE_URL/)
    assert.match(result.stderr, /Usage:/)
  })

  it("cli: an unreachable database exits 1 with one line naming the cause; --debug adds the driver's error", async () => {
    const result = await tender(["migrate", "--database-url", "postgres://postgres@127.0.0.1:1/test"])
    assert.deepStrictEqual([result.code, result.stderr], [
      1,
      "tender migrate: connection refused at 127.0.0.1:1: is PostgreSQL running there? check the host and port of the connection string\n"
    ])
    const debug = await tender(["migrate", "--debug", "--database-url", "postgres://postgres@127.0.0.1:1/test"])
    assert.strictEqual(
      debug.stderr.split("\n")[0],
      "tender migrate: connection refused at 127.0.0.1:1: is PostgreSQL running there? check the host and port of the connection string"
    )
    assert.include(debug.stderr, "ECONNREFUSED")
  })

  it("cli: a database or role that does not exist is named in one line", async () => {
    const noDatabase = new URL(url)
    noDatabase.pathname = "/tender_no_such_database"
    const missing = await tender(["migrate", "--database-url", noDatabase.toString()])
    assert.deepStrictEqual([missing.code, missing.stderr], [
      1,
      `tender migrate: database "tender_no_such_database" does not exist: create it, or name an existing database in the connection string\n`
    ])
    const noRole = new URL(url)
    noRole.username = "tender_no_such_role"
    const role = await tender(["migrate", "--database-url", noRole.toString()])
    assert.deepStrictEqual([role.code, role.stderr], [
      1,
      `tender migrate: role "tender_no_such_role" does not exist: create the role, or name an existing one in the connection string\n`
    ])
  })
})

describe("tender seed check", () => {
  it("cli: a valid seed passes with its counts; an invalid one fails naming the problem", async () => {
    const ok = await tender(["seed", "check", seedPath])
    assert.strictEqual(ok.code, 0, ok.stderr)
    assert.match(ok.stdout, /valid: 1 merchant\(s\), 1 key pair\(s\)/)
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const bad = join(dir, "seed.json")
    writeFileSync(bad, JSON.stringify({ merchants: [{ id: "m", name: "M", allowed_checkout_modes: ["nope"], api_keys: [], routes: [] }] }))
    const invalid = await tender(["seed", "check", bad])
    assert.strictEqual(invalid.code, 1)
    assert.match(invalid.stderr, /allowed_checkout_modes/)
    writeFileSync(bad, "{not json")
    const malformed = await tender(["seed", "check", bad])
    assert.deepStrictEqual([malformed.code, malformed.stderr], [1, `tender seed check: seed file ${bad} is not valid JSON: syntax error at line 1, column 2\n`])
    const missing = await tender(["seed", "check", join(dir, "nope.json")])
    assert.deepStrictEqual([missing.code, missing.stderr], [1, `tender seed check: seed file ${join(dir, "nope.json")} does not exist\n`])
    assert.strictEqual((await tender(["seed", "check"])).code, 2)
  })
})

describe("tender keys issue", () => {
  it("cli: without a database, prints a pair the seed format accepts", async () => {
    const result = await tender(["keys", "issue", "--merchant", "mch_demo", "--environment", "live"])
    assert.strictEqual(result.code, 0, result.stderr)
    const key = JSON.parse(result.stdout)
    assert.match(key.public_key, /^pk_live_/)
    assert.match(key.secret_key, /^sk_live_/)
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const file = join(dir, "seed.json")
    writeFileSync(file, JSON.stringify({ merchants: [{ id: "mch_demo", name: "Demo", allowed_checkout_modes: ["merchant"], api_keys: [key], routes: [] }] }))
    assert.strictEqual((await tender(["seed", "check", file])).code, 0)
  })

  it("cli: with a database, issues into it: the pair authenticates at a Tender on that database", async () => {
    const prefix = fresh()
    const started = await createTender({
      storage: { postgres: pool, tablePrefix: prefix },
      merchants: seedPath,
      publicUrl: "http://127.0.0.1/payments",
      checkoutSecret: "test-secret",
      logger: { info() {}, warn() {}, error() {} }
    })
    try {
      const result = await tender(["keys", "issue", "--merchant", "mch_demo", "--environment", "test", "--database", "--table-prefix", prefix], {
        DATABASE_URL: url
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const key = JSON.parse(result.stdout)
      const res = await started.fetch(
        new Request("http://127.0.0.1/payments/payment_intents", {
          headers: { authorization: "Basic " + Buffer.from(`${key.public_key}:${key.secret_key}`).toString("base64") }
        })
      )
      assert.strictEqual(res.status, 200)
      const missing = await tender(["keys", "issue", "--merchant", "mch_nope", "--environment", "test", "--database-url", url, "--table-prefix", prefix])
      assert.strictEqual(missing.code, 1)
      assert.match(missing.stderr, /No merchant/)
    } finally {
      await started.close()
    }
    assert.strictEqual((await tender(["keys", "issue", "--merchant", "mch_demo"])).code, 2)
  })

  it("cli: on a prefix never migrated it says to run tender migrate", async () => {
    const prefix = fresh()
    const result = await tender(["keys", "issue", "--merchant", "mch_demo", "--environment", "test", "--database-url", url, "--table-prefix", prefix])
    assert.strictEqual(result.code, 1)
    assert.strictEqual(
      result.stderr,
      `tender keys issue: relation "${prefix}merchants" does not exist: the database is not migrated for this version of Tender; run npx tender migrate (or start with migrate: true)\n`
    )
  })
})

describe("tender openapi", () => {
  it("cli: prints the OpenAPI 3.1 document of the API", async () => {
    const result = await tender(["openapi"])
    assert.strictEqual(result.code, 0)
    const doc = JSON.parse(result.stdout)
    assert.match(doc.openapi, /^3\.1/)
    assert.property(doc.paths, "/payment_intents")
  })

  it("cli: an unknown command or option exits 2 with the usage", async () => {
    assert.strictEqual((await tender(["frobnicate"])).code, 2)
    assert.strictEqual((await tender(["openapi", "--nope"])).code, 2)
  })
})

describe("tender accounts reseal", () => {
  it("D13 cli: without TENDER_PROVIDER_ACCOUNT_KEYS it exits 2 with the usage; a key that is not 32 bytes exits 1 naming the key by its id, never its value", async () => {
    const unset = await tender(["accounts", "reseal", "--database-url", url])
    assert.strictEqual(unset.code, 2)
    assert.match(unset.stderr, /TENDER_PROVIDER_ACCOUNT_KEYS is not set/)
    const short = await tender(["accounts", "reseal", "--database-url", url], { TENDER_PROVIDER_ACCOUNT_KEYS: "k9:dG9vU2hvcnRTRUNSRVQ=" })
    assert.strictEqual(short.code, 1)
    assert.match(short.stderr, /key k9/)
    assert.notInclude(short.stderr + short.stdout, "dG9vU2hvcnRTRUNSRVQ=")
  })
})
