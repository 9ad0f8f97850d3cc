/**
 * The folders of packages/core/src are docs/architecture.md's module map: every folder of `src/`
 * is a `###` folder of the map and the reverse, every module sits in the folder whose table names
 * it, every `internal/` file in the folder whose `internal/` row names it, and nothing else is in
 * `src/` but `index.ts`. A module keeps its public name wherever it sits: `src/index.ts` exports it
 * as a namespace and core's `package.json` as the subpath `@tender/core/<Module>`, so no two
 * modules share a name, and no `internal/` file is exported.
 */
import { assert, describe, it } from "@effect/vitest"
import { repoRoot } from "@tender/repo-test-support"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const core = join(repoRoot, "packages", "core")
const src = join(core, "src")

/** The map as the doc draws it: each folder with its modules and its internal files. */
interface Folder {
  readonly modules: ReadonlyArray<string>
  readonly internal: ReadonlyArray<string>
}

/** The folders of the map's section of `doc`: `### \`name/\`` headings, `| \`Module.ts\` |` rows, `| \`internal/\` | \`a.ts\`, … |` rows. */
const mapOf = (doc: string): Map<string, Folder> => {
  const start = doc.indexOf("## Module map of `packages/core`")
  if (start < 0) return new Map()
  const end = doc.indexOf("\n## ", start + 1)
  const section = doc.slice(start, end === -1 ? undefined : end)
  const folders = new Map<string, { modules: Array<string>; internal: Array<string> }>()
  let current: { modules: Array<string>; internal: Array<string> } | undefined
  for (const line of section.split("\n")) {
    const heading = /^### `([A-Za-z0-9]+)\/`/.exec(line)
    if (heading !== null) {
      current = { modules: [], internal: [] }
      if (folders.has(heading[1]!)) current = folders.get(heading[1]!)!
      folders.set(heading[1]!, current)
      continue
    }
    const internal = /^\| `internal\/` \| (.*) \|$/.exec(line)
    if (internal !== null) {
      current?.internal.push(...[...internal[1]!.matchAll(/`([A-Za-z0-9]+\.ts)`/g)].map((m) => m[1]!))
      continue
    }
    const module = /^\| `([A-Za-z0-9]+\.ts)` \|/.exec(line)
    if (module !== null) {
      if (current === undefined) folders.set("", { modules: [module[1]!], internal: [] })
      else current.modules.push(module[1]!)
    }
  }
  return folders
}

/** What `src/` holds: files at its root, and each folder's modules, internal files and other entries. */
interface Tree {
  readonly root: ReadonlyArray<string>
  readonly folders: ReadonlyMap<
    string,
    { readonly modules: ReadonlyArray<string>; readonly internal: ReadonlyArray<string>; readonly other: ReadonlyArray<string> }
  >
}

const treeOf = (dir: string): Tree => {
  const entries = readdirSync(dir, { withFileTypes: true })
  const folders = new Map<string, { modules: Array<string>; internal: Array<string>; other: Array<string> }>()
  for (const e of entries.filter((e) => e.isDirectory())) {
    const inner = readdirSync(join(dir, e.name), { withFileTypes: true })
    // A folder without files is one git does not keep (what a move leaves behind in a work tree).
    if (inner.length === 0) continue
    const internal = inner.some((i) => i.isDirectory() && i.name === "internal")
      ? readdirSync(join(dir, e.name, "internal"), { withFileTypes: true })
      : []
    folders.set(e.name, {
      modules: inner.filter((i) => i.isFile() && i.name.endsWith(".ts")).map((i) => i.name),
      internal: internal.filter((i) => i.isFile() && i.name.endsWith(".ts")).map((i) => i.name),
      other: [
        ...inner.filter((i) => !(i.isFile() && i.name.endsWith(".ts")) && !(i.isDirectory() && i.name === "internal")).map((i) => `${e.name}/${i.name}`),
        ...internal.filter((i) => !(i.isFile() && i.name.endsWith(".ts"))).map((i) => `${e.name}/internal/${i.name}`)
      ]
    })
  }
  return { root: entries.filter((e) => !e.isDirectory()).map((e) => e.name), folders }
}

/** Every way `tree` and `map` disagree, one line each (none: the folders are the map). */
const mismatches = (map: ReadonlyMap<string, Folder>, tree: Tree): Array<string> => {
  const problems: Array<string> = []
  for (const f of tree.root) if (f !== "index.ts") problems.push(`src/${f} is in no concept folder`)
  if (map.has("")) problems.push(`the map names ${map.get("")!.modules.join(", ")} under no folder`)
  for (const [name, folder] of tree.folders) {
    const mapped = map.get(name)
    if (mapped === undefined) {
      problems.push(`src/${name}/ is a folder the map does not have`)
      continue
    }
    for (const m of folder.modules) if (!mapped.modules.includes(m)) problems.push(`src/${name}/${m} is not in the map's ${name}/`)
    for (const i of folder.internal) if (!mapped.internal.includes(i)) problems.push(`src/${name}/internal/${i} is not in the map's ${name}/internal/`)
    for (const o of folder.other) problems.push(`src/${o} is neither a module nor an internal file`)
  }
  for (const [name, mapped] of map) {
    if (name === "") continue
    const folder = tree.folders.get(name)
    if (folder === undefined) {
      problems.push(`the map's ${name}/ is no folder of src/`)
      continue
    }
    for (const m of mapped.modules) if (!folder.modules.includes(m)) problems.push(`the map's ${name}/${m} is not in src/${name}/`)
    for (const i of mapped.internal) if (!folder.internal.includes(i)) problems.push(`the map's ${name}/internal/${i} is not in src/${name}/internal/`)
  }
  const names = [...tree.folders].flatMap(([name, f]) => f.modules.map((m) => [m, name] as const))
  for (const [m, name] of names) {
    const others = names.filter(([n, other]) => n === m && other !== name)
    if (others.length > 0) problems.push(`${m} is in ${name}/ and in ${others.map(([, o]) => `${o}/`).join(", ")}: @tender/core/${m.slice(0, -3)} can name one`)
  }
  return problems
}

const doc = readFileSync(join(repoRoot, "docs", "architecture.md"), "utf8")
const map = mapOf(doc)
const tree = treeOf(src)
/** Each public module of the tree, by name, with its folder. */
const modules = [...tree.folders].flatMap(([folder, f]) => f.modules.map((m) => ({ name: m.slice(0, -3), folder })))

describe("docs/architecture.md module map of packages/core", () => {
  it("the folders of packages/core/src are the map's: every module and internal file where the map puts it, nothing it does not name", () => {
    assert.isAtLeast(map.size, 5, "the map has its folders")
    assert.isAtLeast(modules.length, 40, "src/ has its modules in folders")
    assert.deepStrictEqual(mismatches(map, tree), [])
  })

  it("src/index.ts exports every module as a namespace of its name, from its folder", () => {
    const index = readFileSync(join(src, "index.ts"), "utf8")
    const exported = new Map([...index.matchAll(/^export \* as (\w+) from "\.\/([^"]+)\.js"$/gm)].map((m) => [m[1]!, m[2]!]))
    assert.deepStrictEqual(
      modules.filter(({ folder, name }) => exported.get(name) !== `${folder}/${name}`).map(({ folder, name }) => `${folder}/${name}`),
      [],
      "modules src/index.ts does not export as `export * as <Module> from \"./<folder>/<Module>.js\"`"
    )
    assert.deepStrictEqual(
      [...exported.values()].filter((p) => !modules.some(({ folder, name }) => p === `${folder}/${name}`)),
      [],
      "index.ts exports what is no module"
    )
  })

  it("package.json exports each module as @tender/core/<Module>, and nothing of internal/", () => {
    const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as { exports: Record<string, unknown> }
    const expected = Object.fromEntries(modules.map(({ folder, name }) => [`./${name}`, {
      "@tender/source": `./src/${folder}/${name}.ts`,
      types: `./dist/${folder}/${name}.d.ts`,
      import: `./dist/${folder}/${name}.js`,
      default: `./dist/${folder}/${name}.js`
    }]))
    const listed = Object.fromEntries(Object.entries(manifest.exports).filter(([k]) => ![".", "./package.json", "./internal/*"].includes(k)))
    assert.deepStrictEqual(listed, expected)
    assert.strictEqual(manifest.exports["./internal/*"], null)
  })

  it("a module in another folder than the map's, an internal file outside its folder, or a folder the map lacks is a mismatch", () => {
    const small = mapOf([
      "## Module map of `packages/core`",
      "### `refunds/`: refunds",
      "| Module | Concept |",
      "|---|---|",
      "| `Refund.ts` | the refund |",
      "| `Refunds.ts` | refund operations |",
      "| `internal/` | `refundProvider.ts` |",
      "### `events/`: events",
      "| `Event.ts` | the event |",
      "## Next"
    ].join("\n"))
    const folder = (modules: Array<string>, internal: Array<string> = [], other: Array<string> = []) => ({ modules, internal, other })
    const as = (folders: Record<string, ReturnType<typeof folder>>, root = ["index.ts"]): Tree => ({ root, folders: new Map(Object.entries(folders)) })
    assert.deepStrictEqual(mismatches(small, as({ refunds: folder(["Refund.ts", "Refunds.ts"], ["refundProvider.ts"]), events: folder(["Event.ts"]) })), [])
    assert.deepStrictEqual(mismatches(small, as({ refunds: folder(["Refund.ts"], ["refundProvider.ts"]), events: folder(["Event.ts", "Refunds.ts"]) })), [
      "src/events/Refunds.ts is not in the map's events/",
      "the map's refunds/Refunds.ts is not in src/refunds/"
    ])
    assert.deepStrictEqual(mismatches(small, as({ refunds: folder(["Refund.ts", "Refunds.ts"]), events: folder(["Event.ts"], ["refundProvider.ts"]) })), [
      "src/events/internal/refundProvider.ts is not in the map's events/internal/",
      "the map's refunds/internal/refundProvider.ts is not in src/refunds/internal/"
    ])
    assert.deepStrictEqual(
      mismatches(
        small,
        as({ refunds: folder(["Refund.ts", "Refunds.ts"], ["refundProvider.ts"]), events: folder(["Event.ts"]), payouts: folder(["Payout.ts"]) }, [
          "index.ts",
          "Loose.ts"
        ])
      ),
      ["src/Loose.ts is in no concept folder", "src/payouts/ is a folder the map does not have"]
    )
    assert.deepStrictEqual(mismatches(small, as({ refunds: folder(["Refund.ts", "Refunds.ts"], ["refundProvider.ts"], ["refunds/deep"]) })), [
      "src/refunds/deep is neither a module nor an internal file",
      "the map's events/ is no folder of src/"
    ])
    assert.deepStrictEqual(mismatches(mapOf("## Module map of `packages/core`\n| `Event.ts` | x |\n"), as({})), ["the map names Event.ts under no folder"])
    assert.deepStrictEqual(mismatches(new Map([["a", folder(["X.ts"])], ["b", folder(["X.ts"])]]), as({ a: folder(["X.ts"]), b: folder(["X.ts"]) })), [
      "X.ts is in a/ and in b/: @tender/core/X can name one",
      "X.ts is in b/ and in a/: @tender/core/X can name one"
    ])
  })
})
