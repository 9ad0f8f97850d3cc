/**
 * One merchant's webhook backlog against another's payments on PostgreSQL, with real workers on a
 * pool: packages/http/test/backlogIsolationSuite.ts, on tables of its own.
 */
import { backlogIsolationSuite } from "../../http/test/backlogIsolationSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("one merchant's webhook backlog: PostgreSQL", backlogIsolationSuite)
