/**
 * No import circle among the sources of the packages: a module never imports, through
 * any chain of relative imports, a module that imports it back. `import type` counts, as do
 * re-exports (`export … from`): a circle of types still ties the modules into one unit, and a port
 * that imports its own implementation is the circle this rules out (docs/architecture.md, "Module
 * map of `packages/core`").
 */
import { assert, describe, it } from "@effect/vitest"
import { repoRoot } from "@tender/repo-test-support"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"

const root = repoRoot

/** Every `.ts` file under `dir`, recursively (no `node_modules`). */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

/**
 * The relative specifiers a module imports or re-exports: `import … from`, `import type … from`,
 * `export … from` (over several lines too), and a bare `import "./x.js"`.
 */
const specifiers = (source: string): Array<string> => [
  ...[...source.matchAll(/(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']/g)].map((m) => m[1]!),
  ...[...source.matchAll(/^\s*import\s+["'](\.[^"']+)["']/gm)].map((m) => m[1]!)
]

/** The import graph of `files`: each file to the files among them it imports. */
const graphOf = (files: ReadonlyArray<string>, read: (file: string) => string) => {
  const known = new Set(files)
  return new Map(files.map((file) => [
    file,
    [...new Set(specifiers(read(file)).map((s) => join(dirname(file), s).replace(/\.js$/, ".ts")))].filter((f) => known.has(f))
  ]))
}

/** Every circle of `graph`, one per strongly connected component, as a path that returns to its start. */
const circles = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const components: Array<{ readonly root: string; readonly members: Set<string> }> = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component = new Set<string>()
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.add(w)
      } while (w !== v)
      if (component.size > 1 || (graph.get(v) ?? []).includes(v)) components.push({ root: v, members: component })
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  // One concrete circle per component: breadth first from its root (the member the walk met
  // first) back to it, inside the component.
  return components.map(({ members: component, root: start }) => {
    const from = new Map<string, string>()
    const queue = [start]
    while (queue.length > 0) {
      const v = queue.shift()!
      for (const w of graph.get(v) ?? []) {
        if (!component.has(w)) continue
        if (w === start) {
          const path = [start]
          for (let at: string | undefined = v; at !== undefined && at !== start; at = from.get(at)) path.splice(1, 0, at)
          return [...path, start]
        }
        if (!from.has(w)) {
          from.set(w, v)
          queue.push(w)
        }
      }
    }
    return [...component]
  })
}

describe("import circles", () => {
  it("no import circle among packages/*/src (relative imports, import type and re-exports included)", () => {
    const packages = join(root, "packages")
    const files = readdirSync(packages, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => {
        const src = join(packages, e.name, "src")
        try {
          return sources(src)
        } catch {
          return []
        }
      })
    const graph = graphOf(files, (f) => readFileSync(f, "utf8"))
    // The walk saw the sources: core's ports among them, with their imports.
    assert.isTrue(graph.has(join(packages, "core", "src", "storage", "Storage.ts")), "packages/core/src/storage/Storage.ts was read")
    assert.isAbove([...graph.values()].reduce((n, edges) => n + edges.length, 0), files.length, "relative imports were found")
    const found = circles(graph).map((c) => c.map((f) => relative(root, f)).join(" -> "))
    assert.deepStrictEqual(found, [], "import circles")
  })

  it("the walk reads every form of relative import and ignores package imports", () => {
    const source = [
      "import { Effect } from \"effect\"",
      "import type {",
      "  Write,",
      "  Scope",
      "} from \"./Storage.js\"",
      "import * as Task from \"../Task.js\"",
      "export * from \"./PaymentIntentRecord.js\"",
      "export type { DeliveryRequest } from './WebhookTransport.js'",
      "import \"./sideEffect.js\""
    ].join("\n")
    assert.deepStrictEqual(
      specifiers(source).sort(),
      ["../Task.js", "./PaymentIntentRecord.js", "./Storage.js", "./WebhookTransport.js", "./sideEffect.js"]
    )
  })

  it("the walk names the circle when there is one, and none in a graph without", () => {
    const graph = new Map([
      ["Storage.ts", ["Task.ts", "Table.ts"]],
      ["Task.ts", ["internal/memoryStorage.ts"]],
      ["internal/memoryStorage.ts", ["Storage.ts"]],
      ["Table.ts", []],
      ["Self.ts", ["Self.ts"]]
    ])
    assert.deepStrictEqual(circles(graph), [
      ["Storage.ts", "Task.ts", "internal/memoryStorage.ts", "Storage.ts"],
      ["Self.ts", "Self.ts"]
    ])
    assert.deepStrictEqual(circles(new Map([["A.ts", ["B.ts"]], ["B.ts", ["C.ts"]], ["C.ts", []]])), [])
  })
})
