/**
 * Text PostgreSQL cannot hold (U+0000) in every part of a request: the cases of
 * packages/http/test/refusedTextSuite.ts, each on tables of its own.
 */
import { refusedTextSuite } from "../../http/test/refusedTextSuite.js"
import { storeSuiteOnPostgres } from "./onPostgres.js"

storeSuiteOnPostgres("text no store can hold: PostgreSQL", refusedTextSuite)
