/** Webhook fairness and the resend bound on the in-memory store: packages/http/test/webhookFairnessSuite.ts. */
import { Tender } from "@tender/core"
import { webhookFairnessSuite } from "./webhookFairnessSuite.js"

webhookFairnessSuite("memory", () => Tender.layerMemoryStorage)
