/** A provider's text of any kind on the in-memory store: packages/http/test/providerTextSuite.ts. */
import { Tender } from "@tender/core"
import { providerTextSuite } from "./providerTextSuite.js"

providerTextSuite("memory", () => Tender.layerMemoryStorage)
