/**
 * A seed file `createTender` cannot use is named as the seed, with its resolved path
 * (docs/seed-format.md, "Loading errors"), never a bare `SyntaxError` or `ENOENT`.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { assert, describe, it } from "vitest"
import { createTender, isTenderError, type TenderError } from "../src/index.js"

const options = { publicUrl: "http://127.0.0.1/payments", checkoutSecret: "test-secret-123", logger: { info() {}, warn() {}, error() {} } }

const rejection = async (merchants: string): Promise<TenderError> => {
  const error = await createTender({ ...options, merchants }).then((t) => t.close(), (e: unknown) => e)
  assert.isTrue(isTenderError(error))
  return error as TenderError
}

describe("createTender: a seed file it cannot use", () => {
  const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))

  it("seed file: a missing file is named by its resolved path, from a relative one", async () => {
    const path = join(dir, "missing.json")
    const error = await rejection(relative(process.cwd(), path))
    assert.strictEqual(error.message, `createTender: option "merchants": seed file ${path} does not exist`)
    assert.deepStrictEqual([error.code, error.status, error.param], ["validation_failed", 400, "merchants"])
  })

  it("seed file: bad JSON is placed by line and column", async () => {
    const path = join(dir, "bad.json")
    writeFileSync(path, "{\n  \"merchants\": [\n    { id: \"m\" }\n  ]\n}\n")
    const error = await rejection(path)
    assert.strictEqual(error.message, `createTender: option "merchants": seed file ${path} is not valid JSON: syntax error at line 3, column 7`)
  })

  it("seed file: an empty or truncated file says so", async () => {
    const empty = join(dir, "empty.json")
    writeFileSync(empty, "")
    assert.strictEqual(
      (await rejection(empty)).message,
      `createTender: option "merchants": seed file ${empty} is empty: it needs a JSON object { "merchants": [...] }`
    )
    const truncated = join(dir, "truncated.json")
    writeFileSync(truncated, "{\"merchants\": [")
    assert.strictEqual(
      (await rejection(truncated)).message,
      `createTender: option "merchants": seed file ${truncated} is not valid JSON: it ends before its JSON does`
    )
  })

  it("seed file: valid JSON that is not a valid seed names the file and the field", async () => {
    const path = join(dir, "invalid.json")
    writeFileSync(path, JSON.stringify({ merchants: [{ id: "m", name: "M", allowed_checkout_modes: ["popup"], api_keys: [], routes: [] }] }))
    const error = await rejection(path)
    assert.match(
      error.message,
      new RegExp(
        `^createTender: option "merchants": seed file ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is invalid: merchants\\.0\\.allowed_checkout_modes\\.0: `
      )
    )
  })
})
