/**
 * The demo server bundled once per test run from its TypeScript sources, so the tests that start
 * it as a real process (dozens per run) load one file instead of a thousand modules through the
 * TypeScript loader: a start takes a fraction of the time, the code run is the same sources.
 * Vitest's global setup starts the build; `demoEntry` takes it once it is there. Starts through
 * npm (`npm run dev`, the operator's way) and the benchmarks still run the sources through tsx.
 */
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs"
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

/** Build the bundle into the run's folder; a failure is said on stderr (the demo then starts through tsx). */
export const buildDemoBundle = async (env: NodeJS.ProcessEnv = process.env): Promise<void> => {
  const dir = env[bundleVariable]
  if (dir === undefined || dir === "" || dir === "off") return
  const building = `${dir}.building`
  removeAbandoned()
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
    process.stderr.write(`the demo server's bundle could not be built, its tests start it through tsx: ${String((e as Error).stack ?? e)}\n`)
  }
}

/** The bundles of runs whose process is gone (interrupted before their teardown). */
const removeAbandoned = () => {
  for (const entry of readdirSync(demoDir)) {
    const pid = parseInt(/^\.test-bundle-[0-9a-z]+-([0-9a-z]+)/.exec(entry)?.[1] ?? "", 36)
    if (!Number.isFinite(pid) || pid === process.pid) continue
    try {
      process.kill(pid, 0)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ESRCH") rmSync(join(demoDir, entry), { recursive: true, force: true })
    }
  }
}

/** Remove the run's bundle (the global teardown). */
export const removeDemoBundle = (env: NodeJS.ProcessEnv = process.env): void => {
  const dir = env[bundleVariable]
  if (dir === undefined || dir === "" || dir === "off") return
  for (const path of [dir, `${dir}.building`]) rmSync(path, { recursive: true, force: true })
}

/**
 * The arguments after `node` that start the demo: the run's bundle once built; until then (a
 * file that starts a demo before the build is done, on a loaded machine), with no bundle named (a
 * benchmark, `TENDER_TEST_DEMO_BUNDLE=off`) or when its build failed, the sources through tsx.
 */
export const demoEntry = (): ReadonlyArray<string> => {
  const dir = process.env[bundleVariable]
  const main = dir === undefined || dir === "" || dir === "off" ? undefined : join(dir, "main.mjs")
  return main !== undefined && existsSync(main) ? [main] : ["--import", "tsx", "src/main.ts"]
}
