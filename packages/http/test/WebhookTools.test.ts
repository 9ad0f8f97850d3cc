/**
 * The Events API and the webhook tools on the in-memory store; the same cases run
 * on PostgreSQL in packages/postgres/test/WebhookTools.test.ts.
 */
import { Tender } from "@tender/core"
import { webhookToolsSuite } from "./webhookToolsSuite.js"

webhookToolsSuite("memory", () => Tender.layerMemoryStorage)
