/** A provider's text of any kind on PostgreSQL: the cases of packages/http/test/providerTextSuite.ts, on tables of their own. */
import { providerTextSuite } from "../../http/test/providerTextSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("a provider's text: PostgreSQL", providerTextSuite)
