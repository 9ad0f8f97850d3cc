/** D12 over HTTP on the in-memory store: the cases of balancesSuite.ts. */
import { Tender } from "@tender/core"
import { balancesSuite } from "./balancesSuite.js"

balancesSuite("memory", () => Tender.layerMemoryStorage)
