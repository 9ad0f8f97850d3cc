/**
 * A contract case that fails says what the adapter did wrong: the suite run, in a process of
 * its own, on an Acme adapter whose refund is not idempotent, fails its refund case with the
 * cause and the fix, not `expected 'Failed' to not equal 'Failed'`.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"

const config = fileURLToPath(new URL("./fixtures/vitest.config.ts", import.meta.url))

interface Report {
  readonly testResults: ReadonlyArray<
    { readonly assertionResults: ReadonlyArray<{ readonly title: string; readonly status: string; readonly failureMessages: ReadonlyArray<string> }> }
  >
}

describe("provider contract: its failure messages", () => {
  it("D10 a refund that is not idempotent fails the refund case with what the adapter did wrong and how to fix it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-contract-"))
    try {
      const outputFile = join(dir, "report.json")
      // The run fails (that is its point): its report is what is read.
      await new Promise<void>((done) =>
        execFile("npx", ["--no-install", "vitest", "run", "--config", config, "--reporter=json", `--outputFile=${outputFile}`, "-t", "full refund"], {
          env: { ...process.env, CI: "" }
        }, () => done())
      )
      const report = JSON.parse(readFileSync(outputFile, "utf8")) as Report
      const results = report.testResults.flatMap((f) => f.assertionResults)
      const refund = results.find((r) => r.title.startsWith("D10 refund: a full refund is made once"))
      assert.isDefined(refund, JSON.stringify(results.map((r) => r.title)))
      assert.strictEqual(refund!.status, "failed")
      const first = refund!.failureMessages[0]!.split("\n")[0]!
      assert.include(first, "the adapter's refund, sent again with the same refundId (a retried task), answered")
      assert.include(first, "send refundId as the provider's idempotency key")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
