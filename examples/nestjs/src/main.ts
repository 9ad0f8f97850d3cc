/**
 * Start the NestJS example: `npm start -w @tender/example-nestjs`. Its settings come from the
 * environment (`settingsFromEnv`, docs/server.md): PORT (default 3004), DATABASE_URL,
 * PUBLIC_URL (default http://127.0.0.1:PORT/payments), TENDER_CHECKOUT_SECRET,
 * TENDER_TABLE_PREFIX, TENDER_SEED (default seed.json). `npm start` loads example.env for a
 * developer's machine; a variable already set in the environment wins over it.
 */
import { settingsFromEnv } from "@tender/server"
import { fileURLToPath } from "node:url"
import type pg from "pg"
import { createApp } from "./app.js"
import { DatabaseModule, PG_POOL } from "./database.module.js"
import { TenderModule } from "./tender.module.js"

// Checked at once: a bad PORT or PUBLIC_URL, or no checkout secret, stops the start with the variable's name.
const settings = settingsFromEnv(process.env, { port: 3004, merchants: fileURLToPath(new URL("../seed.json", import.meta.url)) })

/** The app's logger: one JSON object a line, as pino writes them (pino itself fits as it is). */
const line = (level: string) => (fields: Record<string, unknown>, msg: string) => void process.stdout.write(JSON.stringify({ level, msg, ...fields }) + "\n")
const logger = { info: line("info"), warn: line("warn"), error: line("error") }

const app = await createApp(
  TenderModule.forRootAsync({
    // The app's own pool: Tender borrows it and never ends it; DatabaseModule ends it after Tender closed.
    imports: [DatabaseModule.forRoot({ connectionString: settings.databaseUrl, max: 10 })],
    inject: [PG_POOL],
    useFactory: (pool: pg.Pool) => ({ ...settings.onPool(pool), logger })
  })
)

// SIGTERM, SIGINT: Nest stops taking connections, lets requests in flight finish, then calls
// onApplicationShutdown: TenderModule closes Tender, then DatabaseModule ends the pool.
app.enableShutdownHooks()
await app.listen(settings.port, "127.0.0.1")
process.stdout.write(`NestJS example listening on http://127.0.0.1:${settings.port} (Tender at ${settings.publicUrl})\n`)
