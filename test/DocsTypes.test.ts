/**
 * The TypeScript (and JavaScript) blocks of the README and of the docs a host developer starts
 * from (docs/server.md, docs/client.md) type-check under the strict flags this repository
 * builds with, `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess` included, against
 * the packages' sources: a snippet copied into a strict project compiles. A block that is a
 * fragment names what it takes from the surrounding code in an HTML comment right above it,
 * `<!-- types: declare const pool: import("pg").Pool -->`, which the reader does not see.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "vitest"
import { run } from "./packing.js"

const root = resolve(import.meta.dirname, "..")
const documents = ["README.md", "docs/server.md", "docs/client.md"]

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
  for (const m of text.matchAll(/(?:<!-- types:([\s\S]*?)-->\n)?```(?:ts|typescript|js)\n([\s\S]*?)```/g)) {
    blocks.push({ doc, line: text.slice(0, m.index).split("\n").length + (m[1] === undefined ? 0 : m[0].split("\n").findIndex((l) => l.startsWith("```"))), prelude: m[1]?.trim() ?? "", code: m[2]! })
  }
  return blocks
}

describe("docs: code blocks", () => {
  it("docs every TypeScript and JavaScript block of the README, server.md and client.md type-checks under strict", async () => {
    const blocks = documents.flatMap(blocksOf)
    assert.isAtLeast(blocks.length, 15)
    // Inside the repository, so the blocks' imports resolve to the workspace packages.
    const dir = mkdtempSync(join(root, ".docs-types-"))
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
      blocks.forEach((b, i) => writeFileSync(join(dir, `block${i}.ts`), `${b.prelude}\n${b.code}\nexport {}\n`))
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
        extends: "../tsconfig.base.json",
        compilerOptions: { noEmit: true, customConditions: ["@tender/source"], verbatimModuleSyntax: false },
        include: ["*.ts"]
      }))
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
