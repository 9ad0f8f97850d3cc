/**
 * Every rule the repository cites resolves in docs/specification.md, the page the docs send a
 * reader to for a rule's text: a decision cited anywhere in packages/, docs/ or .ci/ (`D11`), a
 * rule a test's title starts with (`4.9.5 …`), and every link to a rule of that page
 * (`specification.md#4.9.5`). A rule cited before the page defines it fails here with where.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "vitest"

const root = resolve(import.meta.dirname, "../../..")
const page = readFileSync(join(root, "docs/specification.md"), "utf8")
const anchors = new Set([...page.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!))

/** The repository's text files under `dirs`, as git knows them (generated JSON left out). */
const files = (dirs: ReadonlyArray<string>) =>
  execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", ...dirs], { cwd: root, encoding: "utf8" })
    .split("\n").filter((f) => f !== "" && !/\.(png|jpe?g|ico|pem|der|key)$/.test(f))

const unresolved = (cited: Iterable<readonly [string, string]>) => [...cited].filter(([id]) => !anchors.has(id)).map(([id, where]) => `${id} (${where})`)

describe("rule citations", () => {
  const texts = files(["packages", "docs", ".ci"]).filter((f) => !f.endsWith(".json")).map((f) => [f, readFileSync(join(root, f), "utf8")] as const)

  it("D1 every decision cited in packages/, docs/ and .ci/ is defined in docs/specification.md", () => {
    const cited = new Map<string, string>()
    for (const [file, text] of texts) {
      for (const m of text.matchAll(/(?<![\w./-])D(\d{1,3})(?![\w])/g)) if (!cited.has(`D${m[1]}`)) cited.set(`D${m[1]}`, file)
    }
    assert.isAtLeast(cited.size, 10)
    assert.deepStrictEqual(unresolved(cited), [])
  })

  it("D1 every rule a test's title starts with, and every link to a rule of the page, resolves in docs/specification.md", () => {
    const cited = new Map<string, string>()
    for (const [file, text] of texts) {
      if (/\.test\.ts$|Cases\.ts$/.test(file)) {
        for (const m of text.matchAll(/\b(?:it|test)(?:\.\w+)*\(\s*["'`]((?:D\d+|\d(?:\.\d+){0,2}))[\s:,]/g)) cited.set(m[1]!, file)
      }
      for (const m of text.matchAll(/specification\.md#([\w.-]+)/g)) cited.set(m[1]!, file)
      if (file === "docs/specification.md") { for (const m of text.matchAll(/\]\(#([\w.-]+)\)/g)) cited.set(m[1]!, file) }
    }
    assert.isAtLeast(cited.size, 30)
    assert.deepStrictEqual(unresolved(cited), [])
  })
})

describe("files cited by .ci/run", () => {
  it("every file .ci/run names is one the repository has", () => {
    const script = readFileSync(join(root, ".ci/run"), "utf8")
    const named = [...new Set([...script.matchAll(/(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.(?:md|json|ts|yaml))\b/g)].map((m) => m[1]!))]
    const tracked = new Set(files(["."]))
    assert.isAtLeast(named.length, 1)
    assert.deepStrictEqual(named.filter((f) => !tracked.has(f) && !f.startsWith("node_modules")), [])
  })
})
