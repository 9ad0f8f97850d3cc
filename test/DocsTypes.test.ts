/**
 * The TypeScript (and JavaScript) blocks of the README and of every page under docs/ type-check
 * under the strict flags this repository builds with, `exactOptionalPropertyTypes` and
 * `noUncheckedIndexedAccess` included (and `experimentalDecorators`, for NestJS), against the
 * packages' sources: a snippet copied into a strict project compiles. A block that is a fragment
 * names what it takes from the surrounding code in an HTML comment right above it,
 * `<!-- types: declare const pool: import("pg").Pool -->`, which the reader does not see; a
 * prelude may leave a bracket open (`interface PaymentProvider {`), closed after the block.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "vitest"
import { run } from "./packing.js"

const root = resolve(import.meta.dirname, "..")
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)
]

interface Block {
  readonly doc: string
  readonly line: number
  readonly prelude: string
  readonly code: string
}

/** Every ```ts, ```typescript and ```js block of `doc`, with the `<!-- types: … -->` comment above it. */
const blocksOf = (doc: string): Array<Block> => {
  const text = readFileSync(join(root, doc), "utf8")
  const blocks: Array<Block> = []
  // An indented block (in a list item) may have its comment indented the same.
  for (const m of text.matchAll(/(?:<!-- types:([\s\S]*?)-->\n[ \t]*)?```(?:ts|typescript|js)\n([\s\S]*?)```/g)) {
    blocks.push({
      doc,
      line: text.slice(0, m.index).split("\n").length + (m[1] === undefined ? 0 : m[0].split("\n").findIndex((l) => l.trimStart().startsWith("```"))),
      prelude: m[1]?.trim() ?? "",
      code: m[2]!
    })
  }
  return blocks
}

/**
 * What closes the brackets a prelude leaves open: a prelude ending in `interface PaymentProvider {`
 * makes the block that interface's members, one ending in `Effect.gen(function*() {` makes it the
 * body of a generator (a block that uses `yield*`).
 */
const closing = (prelude: string): string => {
  const open: Array<string> = []
  for (const c of prelude) {
    if (c === "(" || c === "[" || c === "{") open.push(c)
    else if (c === ")" || c === "]" || c === "}") open.pop()
  }
  return open.reverse().map((c) => (c === "(" ? ")" : c === "[" ? "]" : "}")).join("")
}

describe("docs: code blocks", () => {
  it("docs every TypeScript and JavaScript block of the README and of docs/ type-checks under strict", async () => {
    const all = documents.flatMap(blocksOf)
    assert.isAtLeast(all.length, 75)
    // `<!-- types: skip, <why> -->`: a fragment that cannot compile on its own. Kept this rare on purpose;
    // named by document, not line, so editing the text around it does not fail this test.
    const skipped = all.filter((b) => b.prelude.startsWith("skip"))
    assert.deepStrictEqual(skipped.map((b) => b.doc), ["docs/storage-adapters.md"])
    const blocks = all.filter((b) => !b.prelude.startsWith("skip"))
    // Inside the repository, so the blocks' imports resolve to the workspace packages.
    const dir = mkdtempSync(join(root, ".docs-types-"))
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
      blocks.forEach((b, i) => {
        const source = `${b.prelude}\n${b.code}\n${closing(b.prelude)}\nexport {}\n`
        writeFileSync(join(dir, `block${i}.ts`), source)
        // A block that names its file in its first line (`// AcmePay.ts`) is also that file, for the blocks that import it.
        const file = /^\/\/ ([\w.-]+\.ts)\n/.exec(b.code)?.[1]
        if (file !== undefined) writeFileSync(join(dir, file), source)
      })
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../tsconfig.base.json",
          compilerOptions: { noEmit: true, customConditions: ["@tender/source"], verbatimModuleSyntax: false, experimentalDecorators: true },
          include: ["*.ts"]
        })
      )
      let output = ""
      try {
        await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--pretty", "false"], dir)
      } catch (e) {
        output = (e as { stdout?: string }).stdout ?? String(e)
      }
      // Each error at its place in the document: "docs/server.md:377 (block line 2): TS2345 …".
      const errors = output.split("\n").filter((l) => /^block\d+\.ts\(/.test(l)).map((l) => {
        const [, n, line, rest] = /^block(\d+)\.ts\((\d+),\d+\): (.*)$/.exec(l)!
        const b = blocks[Number(n)]!
        const at = Number(line) - 1 - (b.prelude === "" ? 0 : b.prelude.split("\n").length)
        return `${b.doc}:${b.line + at}: ${rest}`
      })
      assert.deepStrictEqual(errors, [], errors.join("\n"))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
