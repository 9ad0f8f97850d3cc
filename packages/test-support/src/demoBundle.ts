/**
 * The demo server bundled once per test run from its TypeScript sources, so the tests that start
 * it as a real process (dozens per run) load one file instead of a thousand modules through the
 * TypeScript loader: a start takes a fraction of the time, the code run is the same sources.
 * Vitest's global setup starts the build; `demoEntry` waits for it. Starts through npm (`npm
 * run dev`, the operator's way) and the benchmarks still run the sources through tsx.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

/** Where the bundle of this run goes, once built: its `main.mjs`. */
const bundleVariable = "TENDER_TEST_DEMO_BUNDLE"

const demoDir = resolve(import.meta.dirname, "..", "..", "..", "examples", "server")

/**
 * Name the run's bundle folder in `env` (the config's `process.env`), so that every worker knows
 * it. Beside `src/`, so the demo's `seed.json` is where its code looks for it. Set
 * `TENDER_TEST_DEMO_BUNDLE=off` to start the demo from its sources through tsx instead.
 */
export const demoBundleEnv = (env: NodeJS.ProcessEnv): void => {
  if ((env[bundleVariable] ?? "") !== "") return
  env[bundleVariable] = join(demoDir, `.test-bundle-${Date.now().toString(36)}-${process.pid.toString(36)}`)
}

/** Build the bundle into the run's folder (a failure is written beside it, for `demoEntry` to report). */
export const buildDemoBundle = async (env: NodeJS.ProcessEnv = process.env): Promise<void> => {
  const dir = env[bundleVariable]
  if (dir === undefined || dir === "" || dir === "off") return
  const building = `${dir}.building`
  try {
    const { build } = await import("esbuild")
    await build({
      entryPoints: [join(demoDir, "src", "main.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outdir: building,
      // The OpenTelemetry exporter stays a chunk of its own, loaded only when OTEL_* asks for it.
      splitting: true,
      outExtension: { ".js": ".mjs" },
      conditions: ["@tender/source"],
      // CommonJS dependencies (pg, ws) call require: give the ES module one.
      banner: { js: "import { createRequire as __tenderRequire } from \"node:module\"; const require = __tenderRequire(import.meta.url);" },
      logLevel: "silent"
    })
    renameSync(building, dir)
  } catch (e) {
    rmSync(building, { recursive: true, force: true })
    writeFileSync(`${dir}.failed`, String((e as Error).stack ?? e))
  }
}

/** Remove the run's bundle (the global teardown). */
export const removeDemoBundle = (env: NodeJS.ProcessEnv = process.env): void => {
  const dir = env[bundleVariable]
  if (dir === undefined || dir === "" || dir === "off") return
  for (const path of [dir, `${dir}.building`, `${dir}.failed`]) rmSync(path, { recursive: true, force: true })
}

/**
 * The arguments after `node` that start the demo: the run's bundle once built, else (no bundle
 * named: a benchmark, or `TENDER_TEST_DEMO_BUNDLE=off`) the sources through tsx.
 */
export const demoEntry = async (timeoutMs = 120_000): Promise<ReadonlyArray<string>> => {
  const dir = process.env[bundleVariable]
  if (dir === undefined || dir === "" || dir === "off") return ["--import", "tsx", "src/main.ts"]
  const main = join(dir, "main.mjs")
  for (const deadline = Date.now() + timeoutMs; !existsSync(main); await new Promise((r) => setTimeout(r, 50))) {
    if (existsSync(`${dir}.failed`)) throw new Error(`the demo bundle could not be built (${dir}.failed)`)
    if (Date.now() > deadline) throw new Error(`the demo bundle ${main} was not built within ${timeoutMs} ms`)
  }
  return [main]
}
