/**
 * What the extract scripts (`stripe-extract.ts`, `adyen-extract.ts`) share: trimming a
 * description's prose and collecting the component schemas an operation references.
 */

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** The value without the keys a validator never reads (descriptions make up most of a file). */
export const strip = (value: Json, keys: ReadonlyArray<string> = ["description", "summary"]): Json => {
  if (Array.isArray(value)) return value.map((v) => strip(v, keys))
  if (value !== null && typeof value === "object") {
    const out: Record<string, Json> = {}
    for (const [k, v] of Object.entries(value)) {
      if (keys.includes(k)) continue
      out[k] = strip(v, keys)
    }
    return out
  }
  return value
}

/** Adds the names of the component schemas `value` references to `into`. */
export const refsIn = (value: Json, into: Set<string>): void => {
  if (Array.isArray(value)) { for (const v of value) refsIn(v, into) }
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) into.add(v.replace("#/components/schemas/", ""))
      else refsIn(v, into)
    }
  }
}

/** Every schema `roots` reference, transitively, from `all`, stripped with `keys`. */
export const closure = (roots: Iterable<string>, all: Record<string, Json>, keys?: ReadonlyArray<string>): Record<string, Json> => {
  const schemas: Record<string, Json> = {}
  const queue = [...roots]
  while (queue.length > 0) {
    const name = queue.pop()!
    if (name in schemas) continue
    const schema = all[name]
    if (schema === undefined) throw new Error(`schema ${name} is not in the description`)
    schemas[name] = strip(schema, keys)
    const more = new Set<string>()
    refsIn(schemas[name]!, more)
    for (const m of more) if (!(m in schemas)) queue.push(m)
  }
  return schemas
}
