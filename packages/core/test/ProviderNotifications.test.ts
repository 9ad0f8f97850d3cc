/**
 * D11 on the in-memory store: the shared suite of the rules (@tender/repo-test-support), and what
 * only memory shows directly.
 */
import { services, suite } from "@tender/repo-test-support/provider-notices"
import { Tender } from "../src/index.js"

suite("memory", services(Tender.layerMemoryStorage))
