/**
 * The demo server as a user runs it: a real process, a real port, real HTTP.
 */
import { basic, demoKey, hosted as hostedBody, rawExchange, runDemo, stopProcess } from "@tender/repo-test-support"
import { type ChildProcess, execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"

const children: Array<ChildProcess> = []

/**
 * The demo runs in memory (DATABASE_URL empty, whatever the suite's), except where a test asks
 * for PostgreSQL: then on the test database under a table prefix of its own, dropped when the
 * file ends.
 */
const prefixes: Array<string> = []
afterAll(async () => {
  await Promise.all(children.map((child) => stopProcess(child)))
  if (prefixes.length > 0) {
    const { dropTables, runSql } = await import("../../../packages/postgres/test/database.js")
    for (const prefix of prefixes) await runSql(dropTables(prefix))
  }
})

/** Start `npm start`'s entry point and wait for its banner (or its exit: some starts are meant to fail). */
const start = async (env: Record<string, string> = {}, store: "memory" | "postgres" = "memory") => {
  if (store === "postgres") {
    // Loaded only here: the module probes the database when imported.
    const { freshPrefix, url } = await import("../../../packages/postgres/test/database.js")
    const prefix = freshPrefix()
    prefixes.push(prefix)
    return runDemo({ ...env, DATABASE_URL: url, TENDER_TABLE_PREFIX: prefix }, { children })
  }
  return runDemo({ DATABASE_URL: "", ...env }, { children })
}

/** Where the PostgreSQL test database cannot be reached (the test then says so), else undefined. */
const postgresSkip = async () => (await import("../../../packages/postgres/test/database.js")).skipReason

/** One server for the tests that read no state another could change: started by the first, shared by the rest. */
const sharedServers = new Map<string, ReturnType<typeof start>>()
const shared = (env: Record<string, string>) => {
  const key = JSON.stringify(env)
  if (!sharedServers.has(key)) sharedServers.set(key, start(env))
  return sharedServers.get(key)!
}

const demo = { user: demoKey.public, pass: demoKey.secret }
const auth = basic(demoKey)

describe("examples/server (npm start)", () => {
  /** The foundation flow on `server`: create, get, list, discovery, a hosted create. */
  const foundation = async (server: Awaited<ReturnType<typeof start>>) => {
    assert.include(server.output(), `listening on ${server.url}`)
    // The banner's curl names the demo key and reads its secret from the seed; it prints no secret.
    assert.include(server.output(), `curl -s -u ${demo.user}:$TENDER_SECRET_KEY`)
    assert.notInclude(server.output(), demo.pass)
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
      body: JSON.stringify(hostedBody)
    })
    const redirect = ((await hosted.json()) as { next_action: { url: string } }).next_action.url
    assert.isTrue(redirect.startsWith(`${server.url}/checkout/`))
    assert.strictEqual(server.errors(), "")
  }

  // 120 s: the file's first starts may come before the run's bundle is built, through tsx (demoBundle.ts).
  it("serves the foundation flow in memory: create, get, list, discovery", async () => foundation(await start()), 120_000)

  it("serves the foundation flow on PostgreSQL (DATABASE_URL): create, get, list, discovery", async ({ skip }) => {
    const reason = await postgresSkip()
    if (reason !== undefined) return skip(`skipped on PostgreSQL: ${reason}`)
    await foundation(await start({}, "postgres"))
  }, 120_000)

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
    writeFileSync(
      path,
      JSON.stringify({
        merchants: [{
          id: "mch_h",
          name: "Hosted only",
          allowed_checkout_modes: ["hosted"],
          api_keys: [{ id: "k1", public_key: "pk_test_onlyhosted01", secret_key: "sk_test_onlyhostedsecret01" }],
          routes: [{ id: "r1", method: "th_promptpay", provider: "simulator", environments: ["test"] }]
        }]
      })
    )
    // A relative path counts from where npm start was run (INIT_CWD), as a user types it.
    const server = await start({ TENDER_SEED: "seed.json", INIT_CWD: dir })
    assert.include(server.output(), `seed ${path}`)
    const res = await fetch(`${server.url}/payment_intents`, {
      method: "POST",
      headers: {
        authorization: basic({ public: "pk_test_onlyhosted01", secret: "sk_test_onlyhostedsecret01" }),
        "content-type": "application/json"
      },
      body: JSON.stringify({ amount: "150000", currency: "THB", country: "TH", checkout_mode: "merchant", payment_method: "th_promptpay", customer: {} })
    })
    assert.strictEqual(res.status, 403)
    assert.strictEqual(((await res.json()) as { error: { code: string } }).error.code, "checkout_mode_not_allowed")
  })

  it("the banner prints no secret of a custom seed; its curl hint runs as printed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const path = join(dir, "it's seed.json")
    const secret = "sk_test_PRODSECRETdoNotPrint99"
    writeFileSync(
      path,
      JSON.stringify({
        merchants: [{
          id: "mch_prod",
          name: "Production-like",
          allowed_checkout_modes: ["hosted", "merchant"],
          api_keys: [
            { id: "key_prod_test", public_key: "pk_test_prodpublic0001", secret_key: secret },
            { id: "key_prod_live", public_key: "pk_live_prodpublic0001", secret_key: "sk_live_PRODLIVEdoNotPrint99" }
          ],
          routes: [{ id: "r1", method: "th_promptpay", provider: "simulator", environments: ["test"] }]
        }]
      })
    )
    const server = await start({ TENDER_SEED: path })
    const printed = server.output() + server.errors()
    assert.include(printed, "listening on")
    assert.notInclude(printed, "PRODSECRET")
    assert.notInclude(printed, "PRODLIVE")
    // The hint names the key and the file that holds its secret.
    assert.include(printed, "API key key_prod_test")
    assert.include(printed, `its secret_key is in ${path}`)
    // Run the printed commands as a user pastes them into a shell: the create succeeds.
    const lines = printed.split("\n")
    const from = lines.findIndex((l) => l.trim().startsWith("TENDER_SECRET_KEY="))
    const script = lines.slice(from, from + 5).join("\n").replace("curl -s ", "curl -s -o /dev/null -w '%{http_code}' ")
    assert.strictEqual(execFileSync("sh", ["-c", script], { encoding: "utf8" }), "201")
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

  it("a database it cannot use stops the server with one line naming the cause and what to do", async () => {
    const cases: Array<[string, string]> = [
      [
        "postgres://postgres@127.0.0.1:5432/tender_no_such_database",
        `database "tender_no_such_database" does not exist: create it, or name an existing database in the connection string`
      ],
      [
        "postgres://tender_no_such_role@127.0.0.1:5432/test",
        `role "tender_no_such_role" does not exist: create the role, or name an existing one in the connection string`
      ],
      [
        "postgres://postgres@127.0.0.1:1/test",
        "connection refused at 127.0.0.1:1: is PostgreSQL running there? check the host and port of the connection string"
      ]
    ]
    // Three processes at once: each start is mostly module loading.
    await Promise.all(cases.map(async ([url, reason]) => {
      const server = await start({ DATABASE_URL: url, TENDER_TABLE_PREFIX: "tender_" })
      assert.strictEqual(await server.exited, 1, server.output())
      const where = url.replace(/^postgres:\/\/[^@]+@/, "")
      assert.strictEqual(server.errors(), `tender: cannot start on PostgreSQL store at ${where}, table prefix tender_: ${reason}\n`)
    }))
  }, 120_000)

  it("seed file: a missing or malformed TENDER_SEED stops the server with one line naming the seed file's resolved path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-seed-"))
    const malformed = join(dir, "bad.json")
    writeFileSync(malformed, "{not json")
    const cases: Array<[string, string]> = [
      [join(dir, "missing.json"), `tender: seed file ${join(dir, "missing.json")} does not exist (TENDER_SEED)\n`],
      [malformed, `tender: seed file ${malformed} is not valid JSON: syntax error at line 1, column 2 (TENDER_SEED)\n`]
    ]
    await Promise.all(cases.map(async ([path, line]) => {
      const server = await start({ TENDER_SEED: path })
      assert.strictEqual(await server.exited, 1, server.output())
      assert.strictEqual(server.errors(), line)
    }))
  }, 120_000)

  it("an invalid TENDER_*_MS or PORT value stops the server with one line naming the variable and the expected form, exit code 1", async () => {
    const cases: Array<[string, string, string]> = [
      ["TENDER_STARTUP_TIMEOUT_MS", "abc", "TENDER_STARTUP_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647"],
      ["TENDER_REQUEST_TIMEOUT_MS", "-5", "TENDER_REQUEST_TIMEOUT_MS must be a whole number of milliseconds"],
      ["TENDER_DB_STATEMENT_TIMEOUT_MS", "1.5", "TENDER_DB_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds"],
      ["TENDER_TASK_LEASE_MS", "0", "TENDER_TASK_LEASE_MS must be a whole number of milliseconds"],
      // Past Node's timer limit a timeout would fire at once.
      ["TENDER_REQUEST_TIMEOUT_MS", "99999999999", "TENDER_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647"],
      ["TENDER_MAX_HEADER_BYTES", "16k", "TENDER_MAX_HEADER_BYTES must be"],
      ["PORT", "http", "PORT must be a port number from 0 to 65535"]
    ]
    // The starts at once: each is a process of its own that exits on its own.
    await Promise.all(cases.map(async ([name, value, expected]) => {
      const server = await start({ [name]: value })
      assert.strictEqual(await server.exited, 1, server.output())
      assert.match(server.errors(), /^tender: [^\n]+\n$/, server.errors())
      assert.include(server.errors(), expected)
      assert.include(server.errors(), `got ${JSON.stringify(value)}`)
      assert.notInclude(server.errors(), "    at ")
      assert.notInclude(server.output(), "listening on")
    }))
  }, 180_000)
})

/** D1: the error body, its request id equal to the Request-Id header, the connection closed. */
const assertD1 = (res: Awaited<ReturnType<typeof rawExchange>>, status: number, code: string) => {
  assert.strictEqual(res.status, status, res.text)
  assert.strictEqual(res.headers["content-type"], "application/json")
  assert.strictEqual(res.headers["connection"], "close")
  assert.deepStrictEqual(Object.keys(res.body), ["error"])
  assert.strictEqual(res.body.error.code, code)
  assert.isString(res.body.error.message)
  assert.match(res.headers["request-id"] ?? "", /^req_[0-9A-Za-z]{24}$/)
  assert.strictEqual(res.body.error.request_id, res.headers["request-id"])
}

describe("errors Node answers itself come in the D1 shape (ClientErrors)", () => {
  const limits = { TENDER_REQUEST_TIMEOUT_MS: "1500", TENDER_MAX_HEADER_BYTES: "4096" }
  // One server for the three: each request is refused and creates nothing, so none sees another's.

  it("D1 headers over TENDER_MAX_HEADER_BYTES -> 431 validation_failed; headers under it are served", async () => {
    const server = await shared(limits)
    const big = await rawExchange(server.port, `GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(5000)}\r\n\r\n`)
    assertD1(big, 431, "validation_failed")
    const fits = await rawExchange(server.port, `GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${"a".repeat(3000)}\r\n\r\n`)
    assert.strictEqual(fits.status, 200)
  })

  it("D1 a body slower than TENDER_REQUEST_TIMEOUT_MS -> 408 request_timeout; other requests are unaffected", async () => {
    const server = await shared(limits)
    const slow = rawExchange(
      server.port,
      `POST /payment_intents HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"amount"`,
      { keepOpen: true }
    )
    // Meanwhile the server answers others.
    const list = await fetch(`${server.url}/payment_intents`, { headers: { authorization: auth } })
    assert.strictEqual(list.status, 200)
    assertD1(await slow, 408, "request_timeout")
    const after = await fetch(`${server.url}/payment_intents`, { headers: { authorization: auth } })
    assert.deepStrictEqual(((await after.json()) as { data: Array<unknown> }).data, [])
  })

  it("D1 HTTP/1.1 without Host -> 400 param Host; conflicting Content-Length and Transfer-Encoding -> 400; nothing is created", async () => {
    const server = await shared(limits)
    const body = JSON.stringify({ amount: "1", currency: "THB", country: "TH", customer: {} })
    const noHost = await rawExchange(
      server.port,
      `POST /payment_intents HTTP/1.1\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    )
    assertD1(noHost, 400, "validation_failed")
    assert.strictEqual(noHost.body.error.param, "Host")
    const both = await rawExchange(
      server.port,
      `POST /payment_intents HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${
        body.length.toString(16)
      }\r\n${body}\r\n0\r\n\r\n`
    )
    assertD1(both, 400, "validation_failed")
    const garbage = await rawExchange(server.port, "NOT HTTP AT ALL\r\n\r\n")
    assertD1(garbage, 400, "validation_failed")
    const list = await fetch(`${server.url}/payment_intents`, { headers: { authorization: auth } })
    assert.deepStrictEqual(((await list.json()) as { data: Array<unknown> }).data, [])
  })
})
