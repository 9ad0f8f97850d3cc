/**
 * Waiting for what a server does in the background (workers applying notices, calling a
 * provider as tasks): asked again every 50 ms, at most 400 times, a bound on a hung run on a
 * loaded machine, not a timing check.
 */

/** Polls until `check` gives a value other than `undefined`, and gives it back. */
export const eventually = async <A>(check: () => Promise<A | undefined> | A | undefined): Promise<A> => {
  for (let i = 0; i < 400; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error("the condition never held")
}
