/**
 * The packages as a host gets them: built, packed with `npm pack`, installed from the
 * tarballs into a fresh project outside the repository, then
 * - a plain JavaScript server (no TypeScript, no loader) serves a create over real HTTP;
 * - `require()` loads them too (Node's require of ES modules; no CommonJS build ships);
 * - a TypeScript host type-checks against them under strict flags with skipLibCheck off,
 *   and the compiler reads only their declaration files, never their sources.
 * docs/architecture.md, "Building and packing".
 */
import { basic, cleanEnv, demoKey, freePort, promptpayNamed, spawnProcess, waitUntil } from "@tender/repo-test-support"
import { type ChildProcess } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { buildAndPack, npm, packages, type Packed, packUnbuilt, publishDryRun, root, rootPackage, run } from "./packing.js"

const fixtures = resolve(import.meta.dirname, "fixtures", "host")

const work = mkdtempSync(join(tmpdir(), "tender-pack-"))
const tarballs = join(work, "tarballs")
const app = join(work, "app")
const children: Array<ChildProcess> = []

let packed: ReadonlyArray<Packed> = []

beforeAll(async () => {
  packed = await buildAndPack(tarballs)
  // A fresh project, outside the repository: nothing resolves from the workspace.
  mkdirSync(app)
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "plain-js-host", private: true, type: "module" }, null, 2))
  const peers = ["effect", "@effect/platform", "@effect/platform-node"].map((n) => `${n}@${rootPackage.devDependencies[n]}`)
  // All tarballs in one install: @tender/http's dependency on @tender/core is met by the
  // core tarball, not looked up in the registry; peers come from the registry.
  await npm(["install", "--prefer-offline", ...packed.map((p) => join(tarballs, p.filename)), ...peers], app)
}, 600_000)

afterAll(() => {
  for (const child of children) child.kill("SIGTERM")
  rmSync(work, { recursive: true, force: true })
})

describe("packed packages", () => {
  it("each tarball holds built JavaScript, declarations and both source maps, the MIT licence text, and no tests", () => {
    assert.sameMembers(packed.map((p) => p.name), packages.map((p) => p.manifest.name))
    for (const p of packed) {
      const paths = p.files.map((f) => f.path)
      for (const f of ["dist/index.js", "dist/index.js.map", "dist/index.d.ts", "dist/index.d.ts.map", "package.json", "README.md", "LICENSE"]) {
        assert.include(paths, f, `${p.name} ships ${f}`)
      }
      assert.isEmpty(paths.filter((f) => f.startsWith("test/") || f.endsWith(".tsbuildinfo")), `${p.name} ships no tests or build state`)
    }
  })

  it("packing right after npm ci builds first: each package's prepack builds it, so the tarball holds the dist/ its exports name", async () => {
    for (const { manifest } of packages) {
      assert.strictEqual(manifest.scripts?.["prepack"], "tsc -b tsconfig.build.json", manifest.name)
      for (const bin of Object.values(manifest.bin ?? {})) {
        assert.include(packed.find((p) => p.name === manifest.name)!.files.map((f) => f.path), bin.replace(/^\.\//, ""), `${manifest.name} ships its bin`)
      }
    }
    // One package packed with no dist/ at all: what its tarball holds, prepack built.
    const client = packages.find((p) => p.manifest.name === "@tender/client")!
    const unbuilt = await packUnbuilt(client.manifest.name, client.dir, join(work, "unbuilt"))
    const paths = unbuilt.files.map((f) => f.path)
    for (const target of Object.values(client.manifest.exports["."] as Record<string, string>).filter((t) => t.startsWith("./dist/"))) {
      assert.include(paths, target.slice(2), `${client.manifest.name} ships ${target}`)
    }
  })

  it("every package passes npm publish --dry-run, with the metadata a registry page shows", async () => {
    for (const { dir, manifest } of packages) {
      assert.isString(manifest.description, manifest.name)
      assert.strictEqual(manifest.license, "MIT", manifest.name)
      assert.isAtLeast(manifest.keywords?.length ?? 0, 3, `${manifest.name} keywords`)
      assert.deepInclude(manifest.repository, { type: "git", directory: dir }, manifest.name)
      assert.match(manifest.repository?.url ?? "", /^git\+https:\/\/github\.com\/.+\.git$/, manifest.name)
      assert.deepStrictEqual(manifest.engines, { node: ">=20" }, manifest.name)
      assert.strictEqual(manifest.publishConfig?.["access"], "public", `${manifest.name}: a scoped package is published public`)
      assert.includeMembers(manifest.files, ["dist", "src"], manifest.name)
    }
    const { published, stderr } = await publishDryRun()
    assert.sameMembers(Object.keys(published), packages.map((p) => p.manifest.name))
    for (const [name, report] of Object.entries(published)) assert.include(report.files.map((f) => f.path), "dist/index.js", name)
    // Nothing npm had to correct in a manifest, no other warning than the missing login of a dry run.
    const warnings = stderr.split("\n").filter((l) => l.startsWith("npm warn") && !l.includes("requires you to be logged in"))
    assert.deepStrictEqual(warnings, [])
  })

  it("exports map types and import to built files, peers are ranges, and @tender dependencies are ranges", () => {
    for (const { dir, manifest } of packages) {
      const main = manifest.exports["."] as Record<string, string>
      assert.deepStrictEqual(Object.keys(main), ["@tender/source", "types", "import", "default"], manifest.name)
      assert.strictEqual(main["types"], "./dist/index.d.ts")
      assert.strictEqual(main["import"], "./dist/index.js")
      assert.strictEqual(manifest.exports["./internal/*"], null, `${manifest.name} closes off internal/`)
      // A caret range, or a tilde where the peer's own peers cap the minor (@opentelemetry/api
      // ~1.9: every 2.x OpenTelemetry SDK requires it below 1.10, docs/observability.md).
      for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
        assert.match(range, /^[\^~]\d/, `${manifest.name} peer ${name}`)
      }
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (name.startsWith("@tender/")) assert.match(range, /^\^\d/, `${manifest.name} dependency ${name}`)
      }
      assert.isTrue(existsSync(join(root, dir, "dist", "index.d.ts")))
    }
    // effect's range admits the pinned version and later 3.x, never Effect 4.
    const core = packages.find((p) => p.manifest.name === "@tender/core")!
    assert.strictEqual(core.manifest.peerDependencies?.["effect"], "^3.22.4")
  })

  it("installs into a plain JavaScript project with no TypeScript and no tsx, and serves a create (201) over HTTP", async () => {
    const installed = readdirSync(join(app, "node_modules", "@tender")).sort()
    assert.deepStrictEqual(installed, packages.map((p) => p.manifest.name.slice("@tender/".length)).sort())
    assert.isFalse(existsSync(join(app, "node_modules", "typescript")), "no TypeScript in the host")
    assert.isFalse(existsSync(join(app, "node_modules", "tsx")), "no tsx in the host")
    copyFileSync(join(fixtures, "server.mjs"), join(app, "server.mjs"))
    copyFileSync(join(root, "examples", "server", "seed.json"), join(app, "seed.json"))
    const port = await freePort()
    const host = spawnProcess(process.execPath, ["server.mjs"], { cwd: app, env: cleanEnv({ PORT: String(port), TENDER_SEED: join(app, "seed.json") }) })
    children.push(host.child)
    if (!(await waitUntil(host, () => host.output().includes("listening"), 120_000))) assert.fail(`the plain JavaScript host did not start:\n${host.output()}`)
    const auth = basic(demoKey)
    const created = await fetch(`http://127.0.0.1:${port}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json", "idempotency-key": "pack-1" },
      body: JSON.stringify(promptpayNamed)
    })
    assert.strictEqual(created.status, 201)
    const intent = (await created.json()) as { id: string; status: string }
    assert.strictEqual(intent.status, "requires_action")
    const got = await fetch(`http://127.0.0.1:${port}/payment_intents/${intent.id}`, { headers: { authorization: auth } })
    assert.strictEqual(got.status, 200)
    // The stack traces of a JavaScript host point into the TypeScript sources through the maps.
    const map = JSON.parse(readFileSync(join(app, "node_modules", "@tender", "core", "dist", "index.js.map"), "utf8")) as { sources: Array<string> }
    assert.deepStrictEqual(map.sources, ["../src/index.ts"])
    assert.isTrue(existsSync(join(app, "node_modules", "@tender", "core", "src", "index.ts")))
  })

  it("npx tender runs the CLI: in the repository (the root links the bin) and in a host installed from the tarballs", async () => {
    assert.match(await run("npx", ["--no-install", "tender", "--help"], root), /^Usage:\n {2}tender migrate/)
    copyFileSync(join(root, "examples", "server", "seed.json"), join(app, "seed-check.json"))
    assert.match(await run("npx", ["--no-install", "tender", "seed", "check", "seed-check.json"], app), /^seed-check\.json: valid: \d+ merchant\(s\)/)
  })

  it("loads through require() as well (no CommonJS build; Node 20.19+ requires ES modules)", async () => {
    const out = await run(process.execPath, [
      "-e",
      "const { Tender } = require('@tender/core'); const { TenderHttp } = require('@tender/http'); const { TenderClient, webhooks } = require('@tender/client'); process.stdout.write(typeof Tender.layerMemory + ' ' + typeof TenderHttp.toWebHandler + ' ' + typeof TenderClient + ' ' + typeof webhooks.verify)"
    ], app)
    assert.strictEqual(out, "function function function function")
  })

  it("a TypeScript host with strict flags and skipLibCheck off type-checks against the declarations only, never the sources", async () => {
    // A TypeScript host brings its own compiler and Node types; @types/pg because
    // @effect/sql-pg's own declarations import `pg`.
    const types = [`typescript@${rootPackage.devDependencies["typescript"]}`, `@types/node@${rootPackage.devDependencies["@types/node"]}`, "@types/pg@8.23.1"]
    await npm(["install", "--no-save", "--prefer-offline", ...types], app)
    const host = join(app, "ts-host")
    mkdirSync(host)
    for (const f of ["host.ts", "tsconfig.json"]) copyFileSync(join(fixtures, f), join(host, f))
    writeFileSync(join(host, "package.json"), JSON.stringify({ type: "module" }))
    let listed = ""
    try {
      listed = await run(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--listFiles"], host)
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string }
      assert.fail(`the host's tsc failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`)
    }
    const ours = listed.split("\n").filter((f) => f.includes("/node_modules/@tender/"))
    assert.isNotEmpty(ours.filter((f) => f.endsWith("/dist/index.d.ts")))
    assert.deepStrictEqual(ours.filter((f) => !f.endsWith(".d.ts")), [], "no source of ours is compiled by the host")
  }, 600_000)
})
