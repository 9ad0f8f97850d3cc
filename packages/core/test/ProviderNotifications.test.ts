/**
 * D11 on the in-memory store: the shared suite of the rules (@tender/test-support), and what
 * only memory shows directly.
 */
import { services, suite } from "@tender/test-support/provider-notices"
import { Tender } from "../src/index.js"

suite("memory", services(Tender.layerMemoryStorage))
