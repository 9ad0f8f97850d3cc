/**
 * Decoding of `application/x-www-form-urlencoded` bodies and query strings written in the
 * bracket notation Stripe's SDK uses (`metadata[order]=1`, `payment_method_types[0]=card`),
 * and coercion of their string leaves to what the operation's schema says they are.
 */

/** A decoded form: nested objects whose leaves are strings (arrays are still index-keyed). */
export type FormValue = string | { [key: string]: FormValue }

/** Splits `a[b][0]` into `["a", "b", "0"]`; null when the brackets are malformed. */
const keyPath = (key: string): Array<string> | null => {
  const open = key.indexOf("[")
  if (open === -1) return [key]
  const parts = [key.slice(0, open)]
  const rest = key.slice(open)
  const re = /\[([^[\]]*)\]/gy
  let consumed = 0
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    parts.push(m[1]!)
    consumed = re.lastIndex
  }
  return consumed === rest.length && parts[0] !== "" ? parts : null
}

/** Decodes a form into nested objects; a key given twice or both as a value and an object is a problem. */
export const decodeForm = (text: string): { value: Record<string, FormValue>; problems: Array<string> } => {
  const value: Record<string, FormValue> = {}
  const problems: Array<string> = []
  for (const [key, leaf] of new URLSearchParams(text)) {
    const path = keyPath(key)
    if (path === null) {
      problems.push(`malformed parameter name ${JSON.stringify(key)}`)
      continue
    }
    let node: Record<string, FormValue> = value
    for (let i = 0; i < path.length - 1; i++) {
      const next = node[path[i]!]
      if (typeof next === "string") {
        problems.push(`${key} is given both as a value and as an object`)
        node = {}
        break
      }
      node = next ?? (node[path[i]!] = {})
    }
    const last = path[path.length - 1]!
    if (node[last] !== undefined) problems.push(`${key} is given twice`)
    node[last] = leaf
  }
  return { value, problems }
}

/** A JSON schema as the extract holds it (after the OpenAPI → JSON Schema conversion). */
export type Schema = { readonly [key: string]: unknown }

/** Follows `$ref` (to the extract's components) and returns the schema it names. */
export type Resolve = (schema: Schema) => Schema

const alternatives = (schema: Schema): ReadonlyArray<Schema> => (schema["anyOf"] ?? schema["oneOf"]) as ReadonlyArray<Schema> | undefined ?? [schema]

const typesOf = (schema: Schema): ReadonlyArray<string> => {
  const t = schema["type"]
  return t === undefined ? [] : Array.isArray(t) ? t : [t as string]
}

/**
 * The form's strings turned into the JSON values the schema describes: integers, numbers,
 * booleans, arrays from index-keyed objects. A leaf that fits no alternative is left as it
 * is, so the schema validation reports it.
 */
export const coerce = (value: FormValue, schema: Schema, resolve: Resolve): unknown => {
  const options = alternatives(resolve(schema)).map(resolve)
  if (typeof value === "string") {
    for (const option of options) {
      const types = typesOf(option)
      if (types.includes("string") && (option["enum"] === undefined || (option["enum"] as Array<unknown>).includes(value))) return value
      if (types.includes("integer") && /^-?\d+$/.test(value)) return Number(value)
      if (types.includes("number") && value !== "" && !Number.isNaN(Number(value))) return Number(value)
      if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true"
    }
    return value
  }
  const keys = Object.keys(value)
  for (const option of options) {
    const types = typesOf(option)
    if (types.includes("array") && keys.every((k, i) => k === String(i))) {
      const items = (option["items"] ?? {}) as Schema
      return keys.map((k) => coerce(value[k]!, items, resolve))
    }
  }
  for (const option of options) {
    if (typesOf(option).includes("object") || option["properties"] !== undefined) {
      const properties = (option["properties"] ?? {}) as Record<string, Schema>
      const additional = option["additionalProperties"]
      const out: Record<string, unknown> = {}
      for (const k of keys) {
        const sub = properties[k] ?? (typeof additional === "object" ? additional as Schema : undefined)
        out[k] = sub === undefined ? value[k] : coerce(value[k]!, sub, resolve)
      }
      return out
    }
  }
  return value
}
