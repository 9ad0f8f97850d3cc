/**
 * Packing the repository's packages as a host gets them, for the packaging tests
 * (Pack.test.ts, Server.test.ts): the publishable workspaces, built and packed with `npm
 * pack` into a folder outside the repository. Not a test file itself.
 */
import { cleanEnv } from "@tender/repo-test-support"
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"

export const root = resolve(import.meta.dirname, "..")

export const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  workspaces: Array<string>
  devDependencies: Record<string, string>
}

export interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly description?: string
  readonly license?: string
  readonly keywords?: Array<string>
  readonly repository?: { readonly type: string; readonly url: string; readonly directory: string }
  readonly engines?: Record<string, string>
  readonly publishConfig?: Record<string, string>
  readonly scripts?: Record<string, string>
  readonly bin?: Record<string, string>
  readonly exports: Record<string, unknown>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly files: Array<string>
}

/** Every publishable package: the workspaces under packages/ not marked private. */
export const packages = rootPackage.workspaces
  .filter((w) => w.startsWith("packages/"))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest }))
  .filter((p) => p.manifest.private !== true)

// Asynchronous on purpose: an install can take minutes on a busy machine, and a synchronous
// child would block the test worker's event loop (Vitest's worker RPC then times out).
export const run = async (cmd: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)(cmd, [...args], { cwd, env: cleanEnv(env), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout

export const npm = (args: ReadonlyArray<string>, cwd: string) => run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], cwd)

export interface Packed {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

/** The JSON `npm` printed after whatever a lifecycle script wrote before it. */
const jsonOf = (out: string): unknown => JSON.parse(out.slice(Math.min(...["[", "{"].map((c) => out.indexOf(c)).filter((i) => i >= 0))))

/** Build every package and pack the publishable ones into `tarballs` (created): what `npm pack` reported. */
export const buildAndPack = async (tarballs: string): Promise<ReadonlyArray<Packed>> => {
  await npm(["run", "build"], root)
  mkdirSync(tarballs)
  const out = await npm(["pack", "--json", "--pack-destination", tarballs, ...packages.flatMap((p) => ["-w", p.manifest.name])], root)
  return jsonOf(out) as Array<Packed>
}

/** `npm pack` of one package whose dist/ was removed first, as right after `npm ci`: its `prepack` builds it. */
export const packUnbuilt = async (name: string, dir: string, tarballs: string): Promise<Packed> => {
  rmSync(join(root, dir, "dist"), { recursive: true, force: true })
  mkdirSync(tarballs, { recursive: true })
  const out = await npm(["pack", "--json", "--pack-destination", tarballs, "-w", name], root)
  return (jsonOf(out) as Array<Packed>)[0]!
}

/** `npm publish --dry-run` of every publishable package: what it would publish, and what it warned. */
export const publishDryRun = async () => {
  const { stdout, stderr } = await promisify(execFile)(
    "npm",
    ["publish", "--dry-run", "--json", "--no-audit", "--no-fund", ...packages.flatMap((p) => ["-w", p.manifest.name])],
    { cwd: root, env: cleanEnv({}), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }
  )
  // One JSON object per workspace, one after the other.
  const objects = stdout.slice(stdout.indexOf("{")).split(/\n(?=\{)/).map((o) =>
    JSON.parse(o) as Record<string, { readonly name: string; readonly files: ReadonlyArray<{ readonly path: string }> }>
  )
  return { published: Object.assign({}, ...objects) as (typeof objects)[number], stderr }
}
