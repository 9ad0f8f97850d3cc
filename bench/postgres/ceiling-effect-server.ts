/**
 * Ceiling (a) of `npm run bench`: a bare `@effect/platform` HttpApi (as bench/http/bare-server.ts)
 * whose endpoints run the statements Tender issues for a get, a list page and a create or replay
 * (bench/postgres/pg-statements.ts) through `@effect/sql-pg`, `PgClient.layer` with Tender's pool size, on
 * the tables Tender migrated. Tender's own stack doing the same work, without Tender.
 *
 *   PORT=… DATABASE_URL=… TENDER_TABLE_PREFIX=… node --import tsx bench/postgres/ceiling-effect-server.ts
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpServerRequest } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import { createServer } from "node:http"
import { createPlan, listPage, parseBasic, principal, type Statement, statements, wire } from "./pg-statements.js"

const port = Number(process.env["PORT"] ?? "3997")
const statementsOf = statements(process.env["TENDER_TABLE_PREFIX"] ?? "tender_")

class Ceiling extends HttpApi.make("ceiling").add(
  HttpApiGroup.make("intents")
    .add(
      HttpApiEndpoint.get("get", "/payment_intents/:id").setPath(Schema.Struct({ id: Schema.String })).addSuccess(Schema.Unknown).addError(
        HttpApiError.NotFound
      )
    )
    .add(
      HttpApiEndpoint.get("list", "/payment_intents").setUrlParams(Schema.Struct({ limit: Schema.optional(Schema.NumberFromString) })).addSuccess(
        Schema.Unknown
      )
    )
    .add(
      HttpApiEndpoint.post("create", "/payment_intents")
        .setPayload(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
        .setHeaders(Schema.Struct({ "idempotency-key": Schema.String }))
        .addSuccess(Schema.Unknown, { status: 201 })
    )
    .addError(HttpApiError.Unauthorized)
) {}

const query = (s: Statement) =>
  Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe<Record<string, any>>(s.text, s.values as Array<unknown>)).pipe(Effect.orDie)

const authenticate = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const credentials = parseBasic(request.headers["authorization"])
  if (credentials === null) return yield* new HttpApiError.Unauthorized()
  const [row] = yield* query(statementsOf.credentials(credentials.publicKey))
  const p = principal(row, credentials.secretKey, credentials.publicKey)
  return p === null ? yield* new HttpApiError.Unauthorized() : p
})

const handlers = HttpApiBuilder.group(Ceiling, "intents", (h) =>
  h
    .handle("get", ({ path }) =>
      Effect.gen(function*() {
        const p = yield* authenticate
        const [row] = yield* query(statementsOf.intent(path.id, p.merchantId, p.environment))
        return row === undefined ? yield* new HttpApiError.NotFound() : wire(row)
      }))
    .handle("list", ({ urlParams }) =>
      Effect.gen(function*() {
        const p = yield* authenticate
        const limit = urlParams.limit ?? 10
        return listPage(yield* query(statementsOf.list(p.merchantId, p.environment, limit)), limit)
      }))
    .handle("create", ({ headers, payload }) =>
      Effect.gen(function*() {
        const p = yield* authenticate
        const plan = createPlan(p, headers["idempotency-key"], payload)
        const [claimed] = yield* query(statementsOf.claim(...plan.claim))
        // A replay answers the stored body (the bench replays only completed keys).
        if (claimed?.["key"] !== 1) return JSON.parse(claimed?.["response_body"] ?? "null")
        yield* query(statementsOf.webhookEndpoints(p.merchantId, p.environment))
        yield* query(statementsOf.commit(plan.commit))
        return JSON.parse(plan.response)
      })))

const database = PgClient.layer({
  url: Redacted.make(process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"),
  maxConnections: Number(process.env["BENCH_POOL"] ?? "10")
})
const server = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Ceiling).pipe(Layer.provide(handlers))),
  Layer.provide(database),
  Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
)
NodeRuntime.runMain(
  Layer.launch(
    Layer.effectDiscard(Effect.sync(() => process.stdout.write(`effect ceiling listening on http://127.0.0.1:${port}\n`))).pipe(Layer.provide(server))
  )
)
