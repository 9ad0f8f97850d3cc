/**
 * The Events API and the webhook tools on PostgreSQL: the cases of
 * packages/http/test/webhookToolsSuite.ts, each on tables of its own.
 */
import { webhookToolsSuite } from "../../http/test/webhookToolsSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("events and webhook tools: PostgreSQL", webhookToolsSuite)
