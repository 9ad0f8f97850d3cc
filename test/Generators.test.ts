/**
 * Clients teams generate from `/openapi.json`, beside the `openapi-typescript` types the
 * contract tests use (packages/http/test/Contract.test.ts): orval and @hey-api/openapi-ts, at
 * versions that accept Node 20, each generated into a fresh project outside the repository,
 * type-checked under `strict` with a host's code on it (fixtures/generators/use.ts), then run:
 * create, get and list against the demo server. orval emits one `const` per schema in the
 * document's order, so this also checks every schema is defined before use (the import would
 * throw `Cannot access '…' before initialization`).
 */
import { basic, demoKey, type DemoServer, launchDemo, promptpay, stopProcess, waitListening } from "@tender/repo-test-support"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { npm, rootPackage, run } from "./packing.js"

/** Pinned: the newest lines (orval 8, @hey-api/openapi-ts 0.99) want Node 22.18. */
const generators = ["orval@7.9.0", "@hey-api/openapi-ts@0.80.16"]

const fixtures = resolve(import.meta.dirname, "fixtures", "generators")
const work = mkdtempSync(join(tmpdir(), "tender-generators-"))
let server: DemoServer | undefined

beforeAll(async () => {
  // A generous wait: the demo runs through tsx, slow to load on a busy machine.
  server = await launchDemo()
  await waitListening(server, "the demo server", 300_000)
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "generated-clients", private: true, type: "module" }))
  const types = [`typescript@${rootPackage.devDependencies["typescript"]}`, `@types/node@${rootPackage.devDependencies["@types/node"]}`]
  await npm(["install", "--prefer-offline", ...generators, ...types], work)
  const document = await fetch(`${server.url}/openapi.json`).then((r) => r.text())
  writeFileSync(join(work, "openapi.json"), document)
}, 600_000)

afterAll(async () => {
  if (server !== undefined) await stopProcess(server.child)
  rmSync(work, { recursive: true, force: true })
})

const bin = (name: string) => join(work, "node_modules", ".bin", name)

describe("generated clients", () => {
  it("orval and @hey-api/openapi-ts generate from /openapi.json; the code type-checks under strict and creates, gets and lists", async () => {
    // orval reads its base URL from its config; the generated functions call fetch with it.
    writeFileSync(
      join(work, "orval.config.cjs"),
      `module.exports = ${
        JSON.stringify({
          tender: { input: { target: "./openapi.json" }, output: { target: "./orval/client.ts", client: "fetch", mode: "single", baseUrl: server!.url } }
        })
      }\n`
    )
    // The project's tsconfig first: @hey-api/openapi-ts reads it to write NodeNext's `.js` import endings.
    for (const f of ["use.ts", "tsconfig.json"]) copyFileSync(join(fixtures, f), join(work, f))
    await run(bin("orval"), ["--config", "./orval.config.cjs"], work)
    await run(bin("openapi-ts"), ["-i", "openapi.json", "-o", "heyapi", "-c", "@hey-api/client-fetch"], work)
    try {
      await run(process.execPath, [join(work, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], work)
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string }
      assert.fail(`tsc failed on the generated clients:\n${err.stdout ?? ""}${err.stderr ?? ""}`)
    }
    mkdirSync(join(work, "out"), { recursive: true })
    writeFileSync(join(work, "out", "package.json"), JSON.stringify({ type: "module" }))
    const out = await run(process.execPath, ["out/use.js"], work, {
      TENDER_URL: server!.url,
      TENDER_AUTHORIZATION: basic(demoKey),
      TENDER_BODY: JSON.stringify(promptpay)
    })
    const results = JSON.parse(out) as Record<string, { created: string; got: string; listed: Array<string> }>
    for (const generator of ["orval", "hey-api"]) {
      const r = results[generator]!
      assert.match(r.created, /^dord_/, generator)
      assert.strictEqual(r.got, r.created, generator)
      assert.include(r.listed, r.created, generator)
    }
  })
})
