/**
 * Packaging, done when: every package packed and installed from its tarball into a fresh
 * plain-JavaScript project (ES modules) and a CommonJS project, neither with an `effect`
 * dependency of its own, each running Tender through `@tender/server`'s Promise API and the
 * typed `@tender/client` alone (test/fixtures/server-host/flow.cjs): mounted in Express under
 * /payments on the host's pg.Pool, a merchant onboarded and its keys issued, a payment taken,
 * a payout approved, a webhook delivery verified. A strict TypeScript host type-checks against
 * the published declarations, and the `tender` CLI migrates a fresh database.
 */
import { dropPrefixed, freshTablePrefix, testDatabaseUrl } from "@tender/repo-test-support"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { buildAndPack, npm, type Packed, rootPackage, run } from "./packing.js"

const fixtures = resolve(import.meta.dirname, "fixtures", "server-host")
const databaseUrl = testDatabaseUrl
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
const prefixes: Array<string> = []
const fresh = () => {
  const prefix = freshTablePrefix()
  prefixes.push(prefix)
  return prefix
}

const work = mkdtempSync(join(tmpdir(), "tender-server-"))
const app = join(work, "app")
let packed: ReadonlyArray<Packed> = []

beforeAll(async () => {
  packed = await buildAndPack(join(work, "tarballs"))
  mkdirSync(app)
  // The host's own dependencies: its framework and its database driver. No effect, no @effect/*.
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "plain-js-host", private: true, type: "module" }, null, 2))
  const frameworks = ["express@5.3.0", "pg@8.23.1"]
  await npm(["install", "--prefer-offline", ...packed.map((p) => join(work, "tarballs", p.filename)), ...frameworks], app)
  for (const f of ["flow.cjs", "host.mjs"]) copyFileSync(join(fixtures, f), join(app, f))
  // The CommonJS host: a project of its own (no "type": CommonJS), resolving the packages installed above.
  mkdirSync(join(app, "cjs-host"))
  writeFileSync(join(app, "cjs-host", "package.json"), JSON.stringify({ name: "commonjs-host", private: true }, null, 2))
  copyFileSync(join(fixtures, "host.cjs"), join(app, "cjs-host", "host.js"))
}, 600_000)

afterAll(async () => {
  for (const prefix of prefixes) await dropPrefixed(pool, prefix)
  await pool.end()
  rmSync(work, { recursive: true, force: true })
})

/** Run a host script with a fresh table prefix: what the flow printed. */
const host = async (script: string, cwd: string) => {
  const out = await run(process.execPath, [script], cwd, { DATABASE_URL: databaseUrl, TENDER_TABLE_PREFIX: fresh() })
  return JSON.parse(out) as Record<string, any>
}

/** What every host's flow must have seen. */
const assertFlow = (result: Record<string, any>) => {
  assert.strictEqual(result["publicKey"], "pk_test_")
  assert.strictEqual(result["intent"].status, "succeeded")
  assert.deepStrictEqual(result["payout"], { approved: "processing", final: "succeeded", approveAgain: "payout_not_approvable" })
  assert.deepStrictEqual(result["event"], { type: "payment_intent.succeeded", object: true })
  assert.strictEqual(result["forged"], "WebhookVerificationError")
  assert.isTrue(result["poolOpen"])
}

describe("@tender/server in hosts without Effect", () => {
  it("server: the hosts list no effect dependency of their own; @tender/server brings it", () => {
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string> }
    assert.isEmpty(Object.keys(manifest.dependencies).filter((d) => d === "effect" || d.startsWith("@effect/")))
    assert.sameMembers(packed.map((p) => p.name), [
      "@tender/core",
      "@tender/http",
      "@tender/postgres",
      "@tender/mongodb",
      "@tender/testing",
      "@tender/stripe",
      "@tender/adyen",
      "@tender/server",
      "@tender/client"
    ])
    assert.isTrue(existsSync(join(app, "node_modules", ".bin", "tender")), "the tender executable is installed")
  })

  it("server: an ES-module host mounts Tender in Express on its pg.Pool and runs the whole flow through the Promise API and the typed client", async () => {
    assertFlow(await host("host.mjs", app))
  }, 300_000)

  it("server: a CommonJS host runs the same flow through require()", async () => {
    assertFlow(await host("host.js", join(app, "cjs-host")))
  }, 300_000)

  it("server: the tender CLI migrates a fresh database", async () => {
    const prefix = fresh()
    const out = await run(join(app, "node_modules", ".bin", "tender"), ["migrate", "--table-prefix", prefix], app, { DATABASE_URL: databaseUrl })
    assert.match(out, /PostgreSQL: ran 0001_/)
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE starts_with(tablename, $1)", [prefix])
    assert.isAbove(rows[0]!.n, 5)
    assert.include(
      await run(join(app, "node_modules", ".bin", "tender"), ["migrate", "--table-prefix", prefix], app, { DATABASE_URL: databaseUrl }),
      "up to date"
    )
  }, 300_000)

  it("server: a strict TypeScript host type-checks against the published declarations of @tender/server and @tender/client", async () => {
    const types = [`typescript@${rootPackage.devDependencies["typescript"]}`, `@types/node@${rootPackage.devDependencies["@types/node"]}`]
    await npm(["install", "--no-save", "--prefer-offline", ...types], app)
    const ts = join(app, "ts-host")
    mkdirSync(ts)
    copyFileSync(join(fixtures, "host.ts"), join(ts, "host.ts"))
    // The flags of the packaging test's TypeScript host (strict, skipLibCheck off).
    copyFileSync(resolve(import.meta.dirname, "fixtures", "host", "tsconfig.json"), join(ts, "tsconfig.json"))
    writeFileSync(join(ts, "package.json"), JSON.stringify({ type: "module" }))
    try {
      await run(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], ts)
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string }
      assert.fail(`the host's tsc failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`)
    }
  }, 600_000)
})
