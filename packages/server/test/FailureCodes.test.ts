/**
 * Tender's failure codes as a JavaScript adapter author gets them: exported by @tender/server,
 * listed in docs/provider-adapters.md, and used by every adapter snippet of docs/ instead of the
 * provider's own codes (D1: a provider's code never reaches a merchant).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "vitest"
import { failureFor, failureMessages } from "../src/index.js"

const docs = resolve(import.meta.dirname, "../../../docs")
const page = readFileSync(join(docs, "provider-adapters.md"), "utf8")

describe("Tender's failure codes", () => {
  it("D1 @tender/server exports Tender's failure codes and their messages, and maps a provider's code it does not know to payment_declined", () => {
    assert.strictEqual(failureMessages.insufficient_funds, "The payer's account has insufficient funds.")
    assert.deepStrictEqual(failureFor({ insufficient_funds: ["NSF"] }, ["NSF"]), {
      failureCode: "insufficient_funds",
      failureMessage: failureMessages.insufficient_funds
    })
    assert.deepStrictEqual(failureFor({ insufficient_funds: ["NSF"] }, ["do_not_honor"]), {
      failureCode: "payment_declined",
      failureMessage: failureMessages.payment_declined
    })
  })

  it("D1 docs/provider-adapters.md lists every failure code with its message, as failureMessages holds them", () => {
    const start = page.indexOf("### Tender's failure codes")
    const section = page.slice(start, page.indexOf("\n#", start + 1))
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (.+?) \|$/gm)].map((m) => [m[1], m[2]])
    assert.deepStrictEqual(Object.fromEntries(rows), failureMessages)
  })

  it("D1 no adapter snippet of docs/ passes a provider's code through as failureCode", () => {
    const known = new Set([...Object.keys(failureMessages), "refund_failed", "payout_failed", "account_closed", "receipt_rejected"])
    const pages = readdirSync(docs, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"))
    const passed: Array<string> = []
    for (const file of pages) {
      const text = readFileSync(join(docs, file), "utf8")
      for (const block of text.matchAll(/```(?:ts|typescript|js)\n([\s\S]*?)```/g)) {
        // A failureCode set in code is one of Tender's codes, written out; failureFor gives the others.
        for (const m of block[1]!.matchAll(/failureCode: ([^,}\n]+)/g)) {
          const value = m[1]!.trim()
          const literal = /^"([a-z_]+)"$/.exec(value)?.[1]
          if (literal === undefined || !known.has(literal)) passed.push(`${file}: failureCode: ${value}`)
        }
      }
    }
    assert.deepStrictEqual(passed, [])
  })
})
