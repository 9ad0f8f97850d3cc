/**
 * What the @tender/server tests share. Not a test file itself.
 */
import { fileURLToPath } from "node:url"

/** The Express example's seed file: the demo merchant and its test key pair, as a host passes `merchants`. */
export const seedPath = fileURLToPath(new URL("../../../examples/express/seed.json", import.meta.url))
