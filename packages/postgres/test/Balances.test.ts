/** D12 over HTTP on PostgreSQL: the cases of packages/http/test/balancesSuite.ts, each on tables of its own. */
import { balancesSuite } from "../../http/test/balancesSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("D12 balances over HTTP: PostgreSQL", balancesSuite)
