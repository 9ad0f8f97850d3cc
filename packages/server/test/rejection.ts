/**
 * The rejection a Promise API test expects. Not a test file itself; apart from fixtures.ts,
 * which child processes load without Vitest.
 */
import { assert } from "vitest"
import { isTenderError, type TenderError } from "../src/index.js"

/** The rejection of `promise`, which must be a TenderError. */
export const rejection = async (promise: Promise<unknown>): Promise<TenderError> => {
  try {
    await promise
  } catch (error) {
    assert.isTrue(isTenderError(error), String(error))
    return error as TenderError
  }
  return assert.fail("expected a rejection")
}
