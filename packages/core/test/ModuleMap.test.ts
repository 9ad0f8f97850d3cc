/**
 * docs/architecture.md's module map of packages/core stays true: every module of `src/` (not
 * `index.ts`, not `internal/`) has a row, and every row names a module that exists.
 */
import { assert, describe, it } from "@effect/vitest"
import { repoRoot } from "@tender/test-support"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = repoRoot
const src = join(root, "packages", "core", "src")
const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8")

/** The module names in the first column of the map's table. */
const mapped = () => {
  const start = doc.indexOf("## Module map of `packages/core`")
  assert.isAtLeast(start, 0, "docs/architecture.md has its module map section")
  const end = doc.indexOf("\n## ", start + 1)
  const section = doc.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^\| `([A-Za-z0-9]+\.ts)` \|/gm)].map((m) => m[1]!)
}

const modules = () => readdirSync(src, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".ts") && e.name !== "index.ts").map((e) => e.name)

describe("docs/architecture.md module map of packages/core", () => {
  it("names every module of packages/core/src", () => {
    const map = new Set(mapped())
    assert.deepStrictEqual(modules().filter((m) => !map.has(m)), [], "modules missing from the map")
  })

  it("names no module that does not exist, and none twice", () => {
    const names = mapped()
    const present = new Set(modules())
    assert.deepStrictEqual(names.filter((m) => !present.has(m)), [], "the map names modules that do not exist")
    assert.strictEqual(new Set(names).size, names.length, "a module is named twice")
  })
})
