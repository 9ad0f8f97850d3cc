/**
 * What the @tender/server tests share. Not a test file itself.
 */
import { fileURLToPath } from "node:url"

/** The Express example's seed file: the demo merchant and its test key pair, as a host passes `merchants`. */
export const seedPath = fileURLToPath(new URL("../../../examples/express/seed.json", import.meta.url))

/**
 * Reads until `done` holds and gives back what it read last, for the caller to assert on: a
 * bound on a hang (about 10 s; the workers' poll alone may take an hour), not a timing check.
 */
export const until = async <A>(read: () => Promise<A>, done: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 400; i++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((r) => setTimeout(r, 25))
  }
  return read()
}
