/** One merchant's webhook backlog against another's payments, on the in-memory store: packages/http/test/backlogIsolationSuite.ts. */
import { Tender } from "@tender/core"
import { backlogIsolationSuite } from "./backlogIsolationSuite.js"

backlogIsolationSuite("memory", () => Tender.layerMemoryStorage)
