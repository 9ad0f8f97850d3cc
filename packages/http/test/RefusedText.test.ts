/**
 * Text no store can hold (U+0000) on the in-memory store; the same cases run on PostgreSQL in
 * packages/postgres/test/RefusedText.test.ts.
 */
import { Tender } from "@tender/core"
import { refusedTextSuite } from "./refusedTextSuite.js"

refusedTextSuite("memory", () => Tender.layerMemoryStorage)
