/**
 * The PostgreSQL tests' `describe`: where no test database answers (database.ts), one skipped
 * test stands in its place, saying why. Not a test file itself.
 */
import { describe, it } from "vitest"
import { skipReason } from "./database.js"

/** `describe(title, tests)` on the test database, or one skipped test naming why it cannot run. */
export const describeOnPostgres = (title: string, tests: () => void): void => {
  if (skipReason !== undefined) describe(title, () => it.skip(`skipped: ${skipReason}`, () => {}))
  else describe(title, tests)
}
