/**
 * The test files below a folder that mock modules (`vi.mock`, `vi.doMock`): a module mock takes
 * effect only on modules loaded after it, so such a file cannot share the modules earlier files
 * loaded, and vitest.config.ts runs it isolated. Found by reading the files, so a new one sorts
 * itself.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

const mocks = /\bvi\.(?:mock|doMock)\(/

/** The `.test.ts` files under `dir` (skipping node_modules), relative to `root`, that mock a module. */
export const mockingFiles = (root: string, dir: string): Array<string> =>
  readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts") && !f.split(/[\\/]/).includes("node_modules"))
    .map((f) => join(root, dir, f))
    .filter((path) => mocks.test(readFileSync(path, "utf8")))
    .map((path) => relative(root, path))
