/**
 * D11 on the in-memory store: the shared suite of the rules (@tender/repo-test-support), and what
 * only memory shows directly.
 */
import { services, suite } from "@tender/repo-test-support/provider-notifications"
import { Tender } from "../src/index.js"

suite("memory", services(Tender.layerMemoryStorage))
