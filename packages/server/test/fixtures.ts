/**
 * What the @tender/server tests share. Not a test file itself.
 */
import { fileURLToPath } from "node:url"

/** The Express example's seed file: the demo merchant and its test key pair, as a host passes `merchants`. */
export const seedPath = fileURLToPath(new URL("../../../examples/express/seed.json", import.meta.url))

/** Where the tests' Tender says it is served. */
export const base = "http://tender.test/payments"

/** `createTender`'s options for a Tender on the seed file with no workers and no log lines, as most tests want one. */
export const quietOptions = {
  publicUrl: base,
  checkoutSecret: "test-secret-123",
  merchants: seedPath,
  workers: false,
  logger: { info() {}, warn() {}, error() {} }
} as const
