/**
 * Every command in the README's ```sh blocks is run: here, as a reader runs them in order
 * (a fresh copy of the repository, its install, `npm start`, each `curl` against it), or by
 * `.ci/run` (checked to contain it). A command added to the README that neither runs fails
 * this test with its text: run it below (a matcher in `steps`) or from `.ci/run`.
 */
import { cleanEnv, freePort, spawnProcess, waitListening } from "@tender/repo-test-support"
import { type ChildProcess, execFile, execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, describe, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const ciScript = readFileSync(join(root, ".ci", "run"), "utf8")

/** The commands of every ```sh block, in order, continuation lines joined, blank lines and comments dropped. */
const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  m[1]!.replace(/\\\n\s*/g, "").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))
)

/** Child processes get the user's environment, minus the test runner's (its source condition, its database). */
const readerEnv = (extra: Record<string, string> = {}) => cleanEnv(extra, ["DATABASE_URL", "MONGODB_URL"])

/** What the commands so far have set up. */
interface Reader {
  cwd: string
  url?: string
  server?: ChildProcess
  createdId?: string | undefined
}

const work = mkdtempSync(join(tmpdir(), "tender-readme-"))
const reader: Reader = { cwd: work }
afterAll(() => {
  // npm start runs npm, a shell and node: stop the whole process group it leads.
  if (reader.server?.pid !== undefined && reader.server.exitCode === null) process.kill(-reader.server.pid, "SIGTERM")
  rmSync(work, { recursive: true, force: true })
})

/** The README's example id and server, replaced by this run's. */
const exampleId = /dord_[0-9A-Za-z]{24}/g
const exampleUrl = "http://127.0.0.1:3000"

interface Step {
  readonly match: RegExp
  readonly where: string
  readonly run?: (command: string, m: RegExpMatchArray) => Promise<void> | void
}

const steps: ReadonlyArray<Step> = [
  {
    // A clone is the repository's files: copied from this working tree (tracked and new files,
    // nothing .gitignore excludes), so uncommitted changes are what is tested.
    match: /^git clone <this repository> (\S+) && cd \1$/,
    where: "here (a copy of the working tree)",
    run: (_c, m) => {
      const dir = join(work, m[1]!)
      const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
        .split("\0").filter((f) => f !== "" && existsSync(join(root, f)))
      for (const f of files) {
        mkdirSync(dirname(join(dir, f)), { recursive: true })
        copyFileSync(join(root, f), join(dir, f))
      }
      reader.cwd = dir
    }
  },
  {
    match: /^npm (ci|install)$/,
    where: "here",
    // Asynchronous: a synchronous install would block the worker's event loop for minutes.
    run: async (command) => {
      const { stderr } = await promisify(execFile)("sh", ["-c", `${command} --no-audit --no-fund --loglevel=warn`], {
        cwd: reader.cwd,
        env: readerEnv(),
        maxBuffer: 64 * 1024 * 1024
      })
      assert.isTrue(existsSync(join(reader.cwd, "node_modules", ".package-lock.json")))
      // Every package installed supports the Node versions the README promises (20 and later).
      assert.deepStrictEqual(stderr.split("\n").filter((l) => l.includes("EBADENGINE")), [], `npm on Node ${process.version} warned:\n${stderr}`)
    }
  },
  {
    match: /^npm start$/,
    where: "here",
    run: async () => {
      const port = await freePort()
      const server = spawnProcess("npm", ["start"], { cwd: reader.cwd, env: readerEnv({ PORT: String(port) }), detached: true })
      reader.server = server.child
      await waitListening(server, "npm start", 600_000)
      const out = server.output()
      reader.url = `http://127.0.0.1:${port}`
      assert.include(out, `Tender demo server listening on ${reader.url} (in-memory store`)
      // Every line the README shows the server printing, as it prints it (`/…/` is the copy's folder).
      const shown = /and prints:\n\n```\n([\s\S]*?)```/.exec(readme)![1]!.trim().split("\n")
      for (const line of shown) {
        assert.include(out, line.replaceAll("/…/", `${reader.cwd}/`).replaceAll(exampleUrl, reader.url), "a line of the README's start-up output")
      }
      // `npm start` runs the built JavaScript.
      assert.include(out, "node dist/main.js")
    }
  },
  {
    match: /^curl /,
    where: "here, against the server `npm start` started",
    run: async (command) => {
      assert.isDefined(reader.url, "a curl runs after npm start")
      const created = reader.createdId
      const line = command.replaceAll(exampleUrl, reader.url!).replace(exampleId, created ?? "$&") + ` -w '\\n%{http_code}'`
      const { stdout: out } = await promisify(execFile)("sh", ["-c", line], { encoding: "utf8", env: readerEnv() })
      const status = Number(out.slice(out.lastIndexOf("\n") + 1))
      const body = JSON.parse(out.slice(0, out.lastIndexOf("\n"))) as { object?: string; id?: string }
      if (command.includes("-d ")) {
        assert.strictEqual(status, 201, out)
        assert.strictEqual(body.object, "payment_intent")
        reader.createdId = body.id
      } else {
        assert.strictEqual(status, 200, out)
      }
    }
  },
  {
    // The tarballs, packed in the copy (each package's prepack builds it), beside it.
    match: /^mkdir -p \.\.\/tender-tarballs && npm pack --pack-destination \.\.\/tender-tarballs( -w @tender\/[\w-]+)+$/,
    where: "here, in the copy",
    run: async (command) => {
      await promisify(execFile)("sh", ["-c", `${command} --loglevel=error`], { cwd: reader.cwd, env: readerEnv(), maxBuffer: 64 * 1024 * 1024 })
      for (const name of command.split(" -w ").slice(1)) {
        assert.isTrue(existsSync(join(reader.cwd, "..", "tender-tarballs", `${name.slice(1).replace("/", "-")}-0.1.0.tgz`)), `${name}'s tarball`)
      }
    }
  },
  {
    // A host beside the repository installs from the tarballs: then createTender starts and answers.
    match: /^npm install (-D )?(\.\.\/tender-tarballs\/\S+\.tgz ?)+( [@\w/.-]+@[\d.]+)*$/,
    where: "here, in a host folder beside the copy",
    run: async (command) => {
      const host = join(reader.cwd, "..", "my-host")
      if (!existsSync(host)) {
        mkdirSync(host)
        writeFileSync(join(host, "package.json"), JSON.stringify({ name: "my-host", private: true, type: "module" }))
      }
      await promisify(execFile)("sh", ["-c", `${command} --prefer-offline --no-audit --no-fund --loglevel=error`], {
        cwd: host,
        env: readerEnv(),
        maxBuffer: 64 * 1024 * 1024
      })
      if (!command.includes("-D ")) {
        const script =
          "const { createTender } = await import('@tender/server'); const t = await createTender({ publicUrl: 'http://127.0.0.1/payments', checkoutSecret: 'readme-secret', logger: { info() {}, warn() {}, error() {} } }); console.log(typeof t.handler); await t.close()"
        const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: host, env: readerEnv() })
        assert.strictEqual(stdout.trim(), "function")
      } else {
        // The adapter author's suite runs: Vitest 3 finds @tender/testing beside @tender/server's defineProvider.
        writeFileSync(
          join(host, "contract.test.js"),
          [
            "import { ProviderContract } from '@tender/testing'",
            "import { defineProvider } from '@tender/server'",
            "import { expect, it } from 'vitest'",
            "it('has the suite and defineProvider', () => { expect(typeof ProviderContract.suite).toBe('function'); expect(typeof defineProvider).toBe('function') })"
          ].join("\n")
        )
        const { stdout } = await promisify(execFile)("npx", ["--no-install", "vitest", "run", "contract.test.js"], { cwd: host, env: readerEnv() })
        assert.match(stdout, /1 passed/)
      }
    }
  },
  // Not run here (it would run this test inside itself): .ci/run runs it.
  { match: /^npm test$/, where: ".ci/run" },
  // The embedding examples' tests: `npm test` runs them (vitest.config.ts, project "examples").
  {
    match: /^npx vitest run( examples\/[\w-]+)+$/,
    where: "npm test, project examples",
    run: async (command) => {
      const config = readFileSync(join(root, "vitest.config.ts"), "utf8")
      for (const dir of command.split(" ").slice(3)) {
        const name = dir.replace(/^examples\//, "")
        assert.isTrue(existsSync(join(root, dir, "test")), `${dir}/test exists`)
        assert.include(config, `"${name}/test/**/*.test.ts"`, `npm test runs ${dir}'s tests`)
      }
    }
  }
]

describe("README commands", () => {
  it("README every command in a sh block is run by this test or by .ci/run", async () => {
    assert.isAbove(commands.length, 5)
    for (const command of commands) {
      const step = steps.find((s) => s.match.test(command))
      if (step === undefined) assert.fail(`README command not exercised: ${command} (run it in test/Readme.test.ts or from .ci/run)`)
      if (step.run !== undefined) await step.run(command, command.match(step.match)!)
      else {
        const runs = ciScript.split("\n").some((l) =>
          !l.trim().startsWith("#") && new RegExp(`(^|[\\s;&|(])${command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s;&|)])`).test(l)
        )
        assert.isTrue(runs, `README command \`${command}\` is said to run in ${step.where}, which does not run it`)
      }
    }
    assert.isDefined(reader.createdId, "the README's create ran")
  }, 900_000)
})
