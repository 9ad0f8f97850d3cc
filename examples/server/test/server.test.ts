/**
 * The demo server as a user runs it: a real process, a real port, real HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, assert, describe, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const children: Array<ChildProcess> = []

/**
 * With DATABASE_URL set (as the README's test command allows) the demo runs on PostgreSQL, as a
 * user's would: each start then gets a table prefix of its own, so no two tests (and no other
 * run) share tables, and every table made is dropped when the file ends.
 */
const databaseUrl = process.env["DATABASE_URL"] === undefined || process.env["DATABASE_URL"] === "" ? undefined : process.env["DATABASE_URL"]
const prefixes: Array<string> = []
const exitedAll = () => Promise.all(children.map((c) => c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((ok) => c.once("close", ok))))
afterAll(async () => {
  for (const child of children) child.kill("SIGTERM")
  await exitedAll()
  if (prefixes.length > 0) {
    const { dropTables, runSql } = await import("../../../packages/postgres/test/database.js")
    for (const prefix of prefixes) await runSql(dropTables(prefix))
  }
})

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const srv = createServer()
    srv.once("error", fail)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() => (typeof address === "object" && address !== null ? ok(address.port) : fail(new Error("no port"))))
    })
  })

/** Start `npm start`'s entry point and wait for its banner. */
const start = async (env: Record<string, string> = {}) => {
  const port = await freePort()
  if (databaseUrl !== undefined && env["TENDER_TABLE_PREFIX"] === undefined) {
    // Loaded only here: the module probes the database when imported.
    const { freshPrefix } = await import("../../../packages/postgres/test/database.js")
    const prefix = freshPrefix()
    prefixes.push(prefix)
    env = { ...env, TENDER_TABLE_PREFIX: prefix }
  }
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (err += d))
  const exited = new Promise<number | null>((ok) => child.once("close", (code) => ok(code)))
  const deadline = Date.now() + 20_000
  while (!out.includes("listening on") && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50))
  }
  return { port, url: `http://127.0.0.1:${port}`, output: () => out, errors: () => err, exited, child }
}

const demo = { user: "pk_test_demo4f8Kq2Lm9XwZ", pass: "sk_test_demo7Hn3Rt5Vb8Yc2Pq6Jw" }
const auth = "Basic " + Buffer.from(`${demo.user}:${demo.pass}`).toString("base64")

describe("examples/server (npm start)", () => {
  it("serves the foundation flow on the store it is given (in memory; PostgreSQL when DATABASE_URL is set): create, get, list, discovery", async () => {
    const server = await start()
    assert.include(server.output(), `listening on ${server.url}`)
    // The banner's curl carries the demo keys and a complete create body.
    assert.include(server.output(), `curl -s -u ${demo.user}:${demo.pass}`)
    const body = /-d '(\{.*\})'/.exec(server.output())?.[1]
    assert.isString(body)
    const created = await fetch(`${server.url}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json", "idempotency-key": "example-1" },
      body: body!
    })
    assert.strictEqual(created.status, 201)
    const intent = (await created.json()) as { id: string; status: string; next_action: { type: string } }
    assert.strictEqual(intent.status, "requires_action")
    assert.strictEqual(intent.next_action.type, "display_qr_code")
    const got = await fetch(`${server.url}/payment_intents/${intent.id}`, { headers: { authorization: auth } })
    assert.strictEqual(got.status, 200)
    const list = (await (await fetch(`${server.url}/payment_intents`, { headers: { authorization: auth } })).json()) as { data: Array<{ id: string }> }
    assert.deepStrictEqual(list.data.map((d) => d.id), [intent.id])
    const options = await fetch(`${server.url}/payment_methods/options?amount=150000&country=TH&currency=THB`, { headers: { authorization: auth } })
    assert.strictEqual(options.status, 200)
    const hosted = await fetch(`${server.url}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify({ amount: "150000", currency: "THB", country: "TH", customer: {} })
    })
    const redirect = ((await hosted.json()) as { next_action: { url: string } }).next_action.url
    assert.isTrue(redirect.startsWith(`${server.url}/checkout/`))
    assert.strictEqual(server.errors(), "")
  })

  it("D1 an oversized body -> 413 in the error body, with or without Content-Length", async () => {
    const server = await start()
    const big = JSON.stringify({ amount: "1", currency: "THB", country: "TH", customer: {}, metadata: { a: "x".repeat(2 * 1024 * 1024) } })
    const headers = { authorization: auth, "content-type": "application/json" }
    const sized = await fetch(`${server.url}/payment_intents`, { method: "POST", headers, body: big })
    assert.strictEqual(sized.status, 413)
    assert.strictEqual(((await sized.json()) as { error: { code: string } }).error.code, "validation_failed")
    // Chunked, no Content-Length: the platform stops reading at the limit and drops the
    // connection before an answer can be written (docs/errors.md). Nothing is created and
    // the server goes on serving.
    const streamed = await new Promise<number | "reset">((ok, fail) => {
      const req = request(`${server.url}/payment_intents`, { method: "POST", headers }, (res) => {
        res.resume()
        res.on("end", () => ok(res.statusCode ?? 0))
      })
      req.on("error", (e) => (["ECONNRESET", "EPIPE"].includes((e as NodeJS.ErrnoException).code ?? "") ? ok("reset") : fail(e)))
      for (let i = 0; i < 32; i++) req.write("x".repeat(64 * 1024))
      req.end()
    })
    assert.include([413, "reset"], streamed)
    const list = await fetch(`${server.url}/payment_intents`, { headers: { authorization: auth } })
    assert.strictEqual(list.status, 200)
    assert.deepStrictEqual(((await list.json()) as { data: Array<unknown> }).data, [])
  })

  it("TENDER_SEED selects the seed file: a merchant allowed only hosted mode gets 403", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const path = join(dir, "seed.json")
    writeFileSync(path, JSON.stringify({
      merchants: [{
        id: "mch_h",
        name: "Hosted only",
        allowed_checkout_modes: ["hosted"],
        api_keys: [{ id: "k1", public_key: "pk_test_onlyhosted01", secret_key: "sk_test_onlyhostedsecret01" }],
        routes: [{ id: "r1", method: "th_promptpay", provider: "simulator", environments: ["test"] }]
      }]
    }))
    // A relative path counts from where npm start was run (INIT_CWD), as a user types it.
    const server = await start({ TENDER_SEED: "seed.json", INIT_CWD: dir })
    assert.include(server.output(), `seed ${path}`)
    const res = await fetch(`${server.url}/payment_intents`, {
      method: "POST",
      headers: {
        authorization: "Basic " + Buffer.from("pk_test_onlyhosted01:sk_test_onlyhostedsecret01").toString("base64"),
        "content-type": "application/json"
      },
      body: JSON.stringify({ amount: "150000", currency: "THB", country: "TH", checkout_mode: "merchant", payment_method: "th_promptpay", customer: {} })
    })
    assert.strictEqual(res.status, 403)
    assert.strictEqual(((await res.json()) as { error: { code: string } }).error.code, "checkout_mode_not_allowed")
  })

  it("a seed that does not hold together stops the server with a clear message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const path = join(dir, "bad.json")
    writeFileSync(path, JSON.stringify({ merchants: [{ id: "m", name: "x", allowed_checkout_modes: ["popup"], api_keys: [], routes: [] }] }))
    const server = await start({ TENDER_SEED: path })
    const code = await server.exited
    assert.notStrictEqual(code, 0)
    assert.include(server.errors(), "InvalidSeed")
    assert.include(server.errors(), "allowed_checkout_modes")
  })
})
