/**
 * Waiting for what a server does in the background (workers applying notices, calling a
 * provider as tasks): asked again every 50 ms, at most 400 times, a bound on a hung run on a
 * loaded machine, not a timing check.
 */

/** Reads until `done` holds and gives back what it read last, held or not, for the caller to assert on. */
export const until = async <A>(read: () => Promise<A> | A, done: (a: A) => boolean): Promise<A> => {
  for (let i = 0; i < 400; i++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((r) => setTimeout(r, 50))
  }
  return read()
}

/** Polls until `check` gives a value other than `undefined`, and gives it back. */
export const eventually = async <A>(check: () => Promise<A | undefined> | A | undefined): Promise<A> => {
  const value = await until(check, (v) => v !== undefined)
  if (value === undefined) throw new Error("the condition never held")
  return value
}
