/**
 * The known name nearest to a misspelt one, for "did you mean" in a message: `storge` is
 * `storage`, `concurency` is `concurrency`. Near means a few edits away (by the length of the
 * name), one name holding the other (`prefix` and `tablePrefix`), or both starting alike for
 * five letters or more (`timeoutMs` and `timeoutMillis`); a name near none is
 * undefined, and the message lists the known names instead.
 */

/** The edits (insert, delete, replace, swap of neighbours) from `a` to `b`, case ignored. */
const distance = (a: string, b: string): number => {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  const d: Array<Array<number>> = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)])
  for (let j = 1; j <= t.length; j++) d[0]![j] = j
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[s.length]![t.length]!
}

const sharedStart = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/** The name of `known` nearest to `name`, or undefined when none is near. */
export const nearest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  const bound = Math.max(2, Math.floor(name.length / 3))
  const lower = name.toLowerCase()
  const near = (k: string, d: number) =>
    d <= bound || (lower.length >= 4 && (k.toLowerCase().includes(lower) || lower.includes(k.toLowerCase()))) || sharedStart(lower, k.toLowerCase()) >= 5
  const scored = known
    .map((k) => ({ k, d: distance(name, k) }))
    .filter(({ d, k }) => near(k, d))
    .sort((x, y) => x.d - y.d)
  return scored[0]?.k
}

/** What a message says of an unknown name: the nearest known one, or every known one. */
export const suggestion = (name: string, known: ReadonlyArray<string>, qualify: (k: string) => string = (k) => k): string => {
  const near = nearest(name, known)
  return near !== undefined ? `did you mean "${qualify(near)}"?` : `the known names are ${known.map((k) => `"${qualify(k)}"`).join(", ")}`
}
