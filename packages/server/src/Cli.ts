/**
 * The `tender` command (docs/cli.md): what a deploy pipeline or an operator runs outside the
 * host process. `main` takes the arguments and the process's streams and environment and
 * resolves to the exit code, so it is tested in-process; `bin.ts` calls it.
 *
 *   tender migrate [--database-url URL] [--table-prefix P] [--mongodb-url URL] [--collection-prefix P]
 *   tender seed check FILE
 *   tender keys issue --merchant ID --environment test|live [--database-url URL | --database] [--table-prefix P]
 *   tender accounts reseal [--database-url URL] [--table-prefix P]
 *   tender openapi
 *
 * @since 0.1.0
 */
import { OpenApi } from "@effect/platform"
import { CredentialVault, Merchants, Provider, ProviderAccounts, Seed } from "@tender/core"
import { Api } from "@tender/http"
import type { PgStorage } from "@tender/postgres"
import { Effect, Layer } from "effect"
import { readFile } from "node:fs/promises"
import { resolve } from "node:path"
import { inspect, parseArgs } from "node:util"
import { accountKeysOf } from "./Env.js"

/** Where the command writes, and what it reads from the environment. @since 0.1.0 @category models */
export interface Io {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A mistake in how the command was called: the message and the usage, exit code 2. */
class UsageError extends Error {}

/** A database the command could not use, in one line (PgDiagnosis); the driver's error is its cause. */
class DatabaseError extends Error {}

const usage = `Usage:
  tender migrate [--database-url URL] [--table-prefix P] [--mongodb-url URL] [--collection-prefix P]
      PostgreSQL migrations (DATABASE_URL) and/or MongoDB indexes (MONGODB_URL)
  tender seed check FILE
      check a seed file (docs/seed-format.md)
  tender keys issue --merchant ID --environment test|live [--database-url URL | --database] [--table-prefix P]
      a new key pair: printed as a seed entry, or issued into the database when one is named
  tender accounts reseal [--database-url URL] [--table-prefix P]
      seal every provider account's credentials under the newest key of TENDER_PROVIDER_ACCOUNT_KEYS
  tender openapi
      print the OpenAPI document of the API
Any command: --debug prints the whole cause of a failure.
`

const options = {
  "database-url": { type: "string" },
  database: { type: "boolean" },
  "table-prefix": { type: "string" },
  "mongodb-url": { type: "string" },
  "collection-prefix": { type: "string" },
  merchant: { type: "string" },
  environment: { type: "string" },
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" }
} as const

type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"]

/** A `pg.Pool` for a command, ended after it. */
const withPool = async <A>(url: string, use: (pool: import("pg").Pool) => Promise<A>): Promise<A> => {
  const { default: pg } = await import("pg")
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: "tender-cli" })
  try {
    return await use(pool)
  } finally {
    await pool.end()
  }
}

/**
 * Run `effect` on a client of the pool at `url`, with Tender's stores on it under `tablePrefix`
 * (never migrating). A database it cannot use fails as one line naming the cause (PgDiagnosis).
 */
const onPostgres = async <A, E>(
  command: string,
  url: string,
  tablePrefix: string | undefined,
  effect: Effect.Effect<A, E, Merchants.Merchants | import("@effect/sql").SqlClient.SqlClient>
) => {
  const [{ PgDiagnosis, PgStorage }, { PgClient }] = await Promise.all([import("@tender/postgres"), import("@effect/sql-pg")])
  try {
    return await withPool(url, (pool) => {
      const client = PgClient.layerFromPool({ acquire: Effect.succeed(pool as PgStorage.PgPool), applicationName: "tender-cli" })
      return Effect.runPromise(effect.pipe(Effect.provide(PgStorage.layerWithoutMigrations({ tablePrefix }).pipe(Layer.provideMerge(client)))))
    })
  } catch (cause) {
    const reason = PgDiagnosis.describe(cause) ?? (cause instanceof Error ? cause.message : String(cause))
    throw new DatabaseError(`tender ${command}: ${reason}`, { cause })
  }
}

const migrate = async (flags: Flags, io: Io): Promise<number> => {
  const databaseUrl = flags["database-url"] ?? io.env["DATABASE_URL"]
  const mongodbUrl = flags["mongodb-url"] ?? io.env["MONGODB_URL"]
  if (databaseUrl === undefined && mongodbUrl === undefined) {
    throw new UsageError("tender migrate: name a database: --database-url or DATABASE_URL (PostgreSQL), --mongodb-url or MONGODB_URL (MongoDB)")
  }
  if (databaseUrl !== undefined) {
    const { PgMigrations } = await import("@tender/postgres")
    const applied = await onPostgres("migrate", databaseUrl, flags["table-prefix"], PgMigrations.run({ tablePrefix: flags["table-prefix"] }))
    io.stdout(
      applied.length === 0
        ? "PostgreSQL: up to date, no migration to run\n"
        : `PostgreSQL: ran ${applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`).join(", ")}\n`
    )
  }
  if (mongodbUrl !== undefined) {
    const [{ MongoStorage }, { MongoClient }] = await Promise.all([import("@tender/mongodb"), import("mongodb")])
    const client = new MongoClient(mongodbUrl)
    try {
      const database = MongoStorage.databaseOfUrl(mongodbUrl) ?? client.db().databaseName
      await Effect.runPromise(MongoStorage.setup(client, { database, collectionPrefix: flags["collection-prefix"] }))
      io.stdout(`MongoDB: indexes of database ${database} in place\n`)
    } finally {
      await client.close()
    }
  }
  return 0
}

const seedCheck = async (file: string | undefined, io: Io): Promise<number> => {
  if (file === undefined) throw new UsageError("tender seed check: name the seed file")
  let input: unknown
  let text: string | undefined
  try {
    input = JSON.parse(text = await readFile(file, "utf8"))
  } catch (error) {
    io.stderr(`tender seed check: ${Seed.fileProblem(resolve(file), error, text)}\n`)
    return 1
  }
  const result = await Effect.runPromise(Effect.either(Seed.decode(input)))
  if (result._tag === "Left") {
    io.stderr(`${file}: invalid: ${result.left.message}\n`)
    return 1
  }
  const keys = result.right.merchants.reduce((n, m) => n + m.api_keys.length, 0)
  io.stdout(`${file}: valid: ${result.right.merchants.length} merchant(s), ${keys} key pair(s)\n`)
  return 0
}

const keysIssue = async (flags: Flags, io: Io): Promise<number> => {
  const merchant = flags.merchant
  const environment = flags.environment
  if (merchant === undefined || (environment !== "test" && environment !== "live")) {
    throw new UsageError("tender keys issue: give --merchant ID and --environment test|live")
  }
  const databaseUrl = flags["database-url"] ?? (flags.database === true ? io.env["DATABASE_URL"] : undefined)
  if (flags.database === true && databaseUrl === undefined) throw new UsageError("tender keys issue --database: DATABASE_URL is not set")
  if (databaseUrl === undefined) {
    // No database: a pair for the seed file, made as the library makes one (only the hash is ever stored).
    const issued = await Effect.runPromise(Merchants.issueKeyPair(merchant, environment).pipe(Effect.provide(Merchants.layerMemory())))
    io.stdout(JSON.stringify({ id: issued.apiKey.id, public_key: issued.publicKey, secret_key: issued.secretKey }, null, 2) + "\n")
    io.stderr(`Add it to the api_keys of merchant ${merchant} in the seed; the secret is shown this once.\n`)
    return 0
  }
  const issued = await onPostgres(
    "keys issue",
    databaseUrl,
    flags["table-prefix"],
    Effect.gen(function*() {
      const found = yield* (yield* Merchants.Merchants).findMerchant(merchant)
      if (found._tag === "None") return undefined
      return yield* Merchants.issueKeyPair(merchant, environment)
    })
  )
  if (issued === undefined) {
    io.stderr(`No merchant ${JSON.stringify(merchant)} in the database.\n`)
    return 1
  }
  io.stdout(JSON.stringify({ id: issued.apiKey.id, merchant, environment, public_key: issued.publicKey, secret_key: issued.secretKey }, null, 2) + "\n")
  io.stderr("Issued into the database; the secret is shown this once.\n")
  return 0
}

/**
 * Move every provider account's credentials under the newest host key (D13): the keys from
 * TENDER_PROVIDER_ACCOUNT_KEYS (newest first; the older ones still open what they sealed).
 */
const accountsReseal = async (flags: Flags, io: Io): Promise<number> => {
  const databaseUrl = flags["database-url"] ?? io.env["DATABASE_URL"]
  if (databaseUrl === undefined) throw new UsageError("tender accounts reseal: name the database: --database-url or DATABASE_URL")
  const keys = accountKeysOf(io.env["TENDER_PROVIDER_ACCOUNT_KEYS"])
  if (keys === undefined) throw new UsageError("tender accounts reseal: TENDER_PROVIDER_ACCOUNT_KEYS is not set (id:key,… newest first)")
  // A key list Tender cannot use is refused before the database is opened (its message names ids only).
  try {
    CredentialVault.make(keys)
  } catch (error) {
    io.stderr(`tender accounts reseal: TENDER_PROVIDER_ACCOUNT_KEYS: ${(error as Error).message}\n`)
    return 1
  }
  const registry = Provider.layerRegistry([], { accountKeys: keys })
  const done = await onPostgres("accounts reseal", databaseUrl, flags["table-prefix"], ProviderAccounts.reseal().pipe(Effect.provide(registry)))
  io.stdout(`provider accounts: ${done.moved} moved under key ${keys[0]!.id}, ${done.current} already under it\n`)
  if (done.unreadable.length > 0) {
    io.stderr(`no configured key opens ${done.unreadable.length} account(s): ${done.unreadable.join(", ")}; they are left as they are\n`)
    return 1
  }
  return 0
}

/**
 * Run the command `argv` (without `node` and the script). Resolves to the exit code: 0 done,
 * 1 failed (the reason on stderr), 2 called wrongly (the usage on stderr).
 *
 * @since 0.1.0
 */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  const debug = argv.includes("--debug")
  try {
    const { positionals, values } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
    const [command, sub, arg] = positionals
    if (values.help === true || command === undefined) {
      io.stdout(usage)
      return command === undefined && values.help !== true ? 2 : 0
    }
    if (command === "migrate") return await migrate(values, io)
    if (command === "seed" && sub === "check") return await seedCheck(arg, io)
    if (command === "keys" && sub === "issue") return await keysIssue(values, io)
    if (command === "accounts" && sub === "reseal") return await accountsReseal(values, io)
    if (command === "openapi") {
      io.stdout(JSON.stringify(OpenApi.fromApi(Api.documented), null, 2) + "\n")
      return 0
    }
    throw new UsageError(`tender: unknown command ${JSON.stringify(positionals.join(" "))}`)
  } catch (error) {
    const usageError = error instanceof UsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n${usageError ? usage : ""}`)
    if (debug && error instanceof Error && error.cause !== undefined) io.stderr(`${inspect(error.cause, { depth: 8 })}\n`)
    return usageError ? 2 : 1
  }
}
