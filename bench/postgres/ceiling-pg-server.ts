/**
 * Ceiling (b) of `npm run bench`: a hand-written `node:http` + `pg` (Pool) server running the
 * statements Tender issues for a get, a list page and a create or replay (bench/postgres/pg-statements.ts),
 * with the same pool size, on the tables Tender migrated. What a team would write by hand.
 *
 *   PORT=… DATABASE_URL=… TENDER_TABLE_PREFIX=… node --import tsx bench/postgres/ceiling-pg-server.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { createPlan, listPage, parseBasic, type Principal, principal, type Statement, statements, wire } from "./pg-statements.js"

const port = Number(process.env["PORT"] ?? "3998")
const sql = statements(process.env["TENDER_TABLE_PREFIX"] ?? "tender_")
const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: Number(process.env["BENCH_POOL"] ?? "10") })
const query = async (s: Statement) => (await pool.query(s.text, s.values as Array<unknown>)).rows

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((ok, fail) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => ok(Buffer.concat(chunks).toString("utf8")))
    req.on("error", fail)
  })

const authenticate = async (req: IncomingMessage): Promise<Principal | null> => {
  const credentials = parseBasic(req.headers.authorization)
  if (credentials === null) return null
  const [row] = await query(sql.credentials(credentials.publicKey))
  return principal(row, credentials.secretKey, credentials.publicKey)
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? "/", "http://localhost")
  const p = await authenticate(req)
  if (p === null) return send(res, 401, { error: { code: "invalid_api_key" } })
  if (req.method === "GET" && url.pathname.startsWith("/payment_intents/")) {
    const [row] = await query(sql.intent(url.pathname.slice("/payment_intents/".length), p.merchantId, p.environment))
    return row === undefined ? send(res, 404, { error: { code: "not_found" } }) : send(res, 200, wire(row))
  }
  if (req.method === "GET" && url.pathname === "/payment_intents") {
    const limit = Number(url.searchParams.get("limit") ?? "10")
    return send(res, 200, listPage(await query(sql.list(p.merchantId, p.environment, limit)), limit))
  }
  if (req.method === "POST" && url.pathname === "/payment_intents") {
    const body = JSON.parse(await readBody(req))
    const key = String(req.headers["idempotency-key"])
    const plan = createPlan(p, key, body)
    const [claimed] = await query(sql.claim(...plan.claim))
    if (claimed?.["key"] !== 1) {
      return send(res, claimed?.["response_status"] ?? 409, claimed?.["response_body"] ?? { error: { code: "idempotency_in_progress" } })
    }
    await query(sql.webhookEndpoints(p.merchantId, p.environment))
    await query(sql.commit(plan.commit))
    return send(res, 201, plan.response)
  }
  send(res, 404, { error: { code: "not_found" } })
}

const server = createServer((req, res) => {
  handle(req, res).catch((e) => send(res, 500, { error: { code: "internal", message: String(e) } }))
})
server.listen(port, "127.0.0.1", () => process.stdout.write(`pg ceiling listening on http://127.0.0.1:${port}\n`))
process.on("SIGINT", () => server.close(() => void pool.end().then(() => process.exit(0))))
