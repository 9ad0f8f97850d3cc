/**
 * Webhook fairness and the resend bound on PostgreSQL, with real concurrency on a pool: the cases
 * of packages/http/test/webhookFairnessSuite.ts, each on tables of its own.
 */
import { webhookFairnessSuite } from "../../http/test/webhookFairnessSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("webhook fairness and the resend bound: PostgreSQL", webhookFairnessSuite)
