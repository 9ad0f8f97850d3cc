/**
 * An OpenAPI extract as a stand-in reads it: operations found by method and path, their
 * request parameters and bodies, and their responses, checked with Ajv. OpenAPI 3.0's
 * `nullable` is rewritten to JSON Schema's `null` type once, when the extract is loaded.
 * Validators are compiled ahead, when a stand-in starts (`compile`), not by the first request:
 * Ajv compiles synchronously, and Stripe's `payment_intent` (some 600 schemas) takes seconds
 * on a loaded machine, a stall of the whole test process in the middle of a test.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { readFileSync } from "node:fs"
import { coerce, type FormValue, type Resolve, type Schema } from "./form.js"

/** The part of an OpenAPI document a stand-in needs. */
export interface OpenApiExtract {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly components: { readonly schemas: Readonly<Record<string, unknown>> }
}

/** An extract as its script wrote it, from the first of `candidates` that exists (a module's place differs in src/ and dist/). */
export const loadExtract = <A extends OpenApiExtract>(candidates: ReadonlyArray<URL>): A => {
  for (const url of candidates) {
    try {
      return JSON.parse(readFileSync(url, "utf8")) as A
    } catch {
      continue
    }
  }
  throw new Error(`no OpenAPI extract at ${candidates.map(String).join(" or ")}`)
}

/** One operation, matched against a request. */
export interface MatchedOperation {
  readonly method: string
  readonly template: string
  readonly operationId: string
  readonly pathParams: Readonly<Record<string, string>>
}

interface Parameter {
  readonly name: string
  readonly in: string
  readonly required?: boolean
  readonly schema: Schema
}

const ROOT = "extract"

/** OpenAPI 3.0 → JSON Schema: `nullable`, and refs pointed at the loaded extract. */
const convert = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(convert)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (k === "nullable") continue
    out[k] = k === "$ref" && typeof v === "string" ? v.replace(/^#/, `${ROOT}#`) : convert(v)
  }
  if ((value as Record<string, unknown>)["nullable"] !== true) return out
  if (out["type"] !== undefined) {
    out["type"] = [out["type"], "null"]
    if (Array.isArray(out["enum"])) out["enum"] = [...out["enum"], null]
    return out
  }
  if (Array.isArray(out["anyOf"])) return { ...out, anyOf: [...out["anyOf"], { type: "null" }] }
  return { anyOf: [out, { type: "null" }] }
}

const describe = (errors: ReadonlyArray<ErrorObject> | null | undefined, where: string): Array<string> =>
  (errors ?? []).slice(0, 10).map((e) => {
    const at = `${where}${e.instancePath.replace(/\//g, ".")}`
    if (e.keyword === "additionalProperties") return `${at}: unknown parameter ${String(e.params["additionalProperty"])}`
    if (e.keyword === "required") return `${at}: missing required ${String(e.params["missingProperty"])}`
    return `${at}: ${e.message ?? e.keyword}`
  })

/** Every schema an operation is checked against: its query parameters, its request bodies, its JSON answers. */
const schemasOf = (op: Record<string, unknown>): Array<Schema> => [
  ...((op["parameters"] ?? []) as Array<Parameter>).filter((p) => p.in === "query").map((p) => p.schema),
  ...Object.values((op["requestBody"] as { content?: Record<string, { schema: Schema }> } | undefined)?.content ?? {}).map((c) => c.schema),
  ...Object.values((op["responses"] ?? {}) as Record<string, { content?: Record<string, { schema: Schema }> }>)
    .flatMap((r): Array<Schema> => {
      const schema = r.content?.["application/json"]?.schema
      return schema === undefined ? [] : [schema]
    })
]

/** The operations of an extract, with validators compiled by `compile`, or else on first use. */
export class OpenApi {
  // Unoptimised code compiles faster (payment_intent reaches ~600 schemas); the checked data is small.
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { optimize: false } })
  private readonly routes: Array<{ method: string; template: string; pattern: RegExp; names: Array<string>; op: Record<string, unknown> }> = []
  // By the schema object the extract holds (a component by its `$ref` object, kept in `refs`):
  // the same object whether `compile` or a check asks, and an answer whose status falls to
  // `default` shares `default`'s validator.
  private readonly compiled = new WeakMap<Schema, ValidateFunction>()
  private readonly refs = new Map<string, Schema>()
  private readonly schemas: Record<string, Schema>

  constructor(extract: OpenApiExtract) {
    this.schemas = convert(extract.components.schemas) as Record<string, Schema>
    this.ajv.addSchema({ $id: ROOT, components: { schemas: this.schemas } })
    for (const [template, item] of Object.entries(extract.paths)) {
      const names: Array<string> = []
      const source = template.replace(/[.*+?^$()|\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_, name: string) => {
        names.push(name)
        return "([^/]+)"
      })
      for (const [method, op] of Object.entries(item)) {
        this.routes.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), names, op: convert(op) as Record<string, unknown> })
      }
    }
  }

  /** Follows a `$ref` into the extract's components. */
  readonly resolve: Resolve = (schema) => {
    let s = schema
    for (let ref = s["$ref"]; typeof ref === "string"; ref = s["$ref"]) {
      s = this.schemas[ref.replace(`${ROOT}#/components/schemas/`, "")] ?? {}
    }
    return s
  }

  /** The operation a method and path name; null when the description has none. */
  match(method: string, path: string): MatchedOperation | null {
    for (const route of this.routes) {
      if (route.method !== method) continue
      const m = route.pattern.exec(path)
      if (m === null) continue
      const pathParams = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]))
      return { method, template: route.template, operationId: String(route.op["operationId"]), pathParams }
    }
    return null
  }

  private op(match: MatchedOperation): Record<string, unknown> {
    return this.routes.find((r) => r.method === match.method && r.template === match.template)!.op
  }

  private validator(schema: Schema): ValidateFunction {
    const known = this.compiled.get(schema)
    if (known !== undefined) return known
    const v = this.ajv.compile(schema)
    this.compiled.set(schema, v)
    return v
  }

  private component(name: string): Schema {
    let ref = this.refs.get(name)
    if (ref === undefined) {
      ref = { $ref: `${ROOT}#/components/schemas/${name}` }
      this.refs.set(name, ref)
    }
    return ref
  }

  /**
   * Compiles every validator of the operations named by operationId (of every operation of the
   * extract when none are) and of the component schemas named, those not compiled yet, yielding
   * to the event loop between two. A name the extract lacks is an error: a misspelt one would
   * leave its compiling to the first request again.
   */
  async compile(operationIds?: ReadonlyArray<string>, components: ReadonlyArray<string> = []): Promise<void> {
    for (const schema of this.schemasNamed(operationIds, components)) {
      if (this.compiled.has(schema)) continue
      this.validator(schema)
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  /** The operations and components named (every operation when none are) with a validator not compiled yet: what a first use would compile. */
  uncompiled(operationIds?: ReadonlyArray<string>, components: ReadonlyArray<string> = []): Array<string> {
    const ids = operationIds ?? this.routes.map((r) => String(r.op["operationId"]))
    return [
      ...ids.filter((id) => this.schemasNamed([id], []).some((s) => !this.compiled.has(s))),
      ...components.filter((c) => !this.compiled.has(this.component(c)))
    ]
  }

  private schemasNamed(operationIds: ReadonlyArray<string> | undefined, components: ReadonlyArray<string>): Array<Schema> {
    const known = new Set(this.routes.map((r) => String(r.op["operationId"])))
    const unknown = [...(operationIds ?? []).filter((id) => !known.has(id)), ...components.filter((c) => this.schemas[c] === undefined)]
    if (unknown.length > 0) throw new Error(`not in the OpenAPI extract: ${unknown.join(", ")}`)
    const routes = operationIds === undefined ? this.routes : this.routes.filter((r) => operationIds.includes(String(r.op["operationId"])))
    return [...routes.flatMap((r) => schemasOf(r.op)), ...components.map((c) => this.component(c))]
  }

  /**
   * Checks a request's query and form body against the operation: every parameter known, of
   * its type, the required ones present. Returns the coerced values and the problems found.
   */
  checkRequest(
    match: MatchedOperation,
    query: Record<string, FormValue>,
    body: Record<string, FormValue> | null
  ): { query: Record<string, unknown>; body: Record<string, unknown>; problems: Array<string> } {
    const op = this.op(match)
    const problems: Array<string> = []
    const parameters = ((op["parameters"] ?? []) as Array<Parameter>).filter((p) => p.in === "query")
    const coercedQuery: Record<string, unknown> = {}
    for (const name of Object.keys(query)) {
      const p = parameters.find((x) => x.name === name)
      if (p === undefined) {
        problems.push(`query: unknown parameter ${name}`)
        continue
      }
      coercedQuery[name] = coerce(query[name]!, p.schema, this.resolve)
      const v = this.validator(p.schema)
      if (!v(coercedQuery[name])) problems.push(...describe(v.errors, `query.${name}`))
    }
    for (const p of parameters) if (p.required === true && query[p.name] === undefined) problems.push(`query: missing required ${p.name}`)
    const bodySchema = this.bodySchema(op, "application/x-www-form-urlencoded")
    let coercedBody: Record<string, unknown> = {}
    if (bodySchema !== undefined) {
      coercedBody = coerce(body ?? {}, bodySchema, this.resolve) as Record<string, unknown>
      const v = this.validator(bodySchema)
      if (!v(coercedBody)) problems.push(...describe(v.errors, "body"))
    } else if (body !== null && Object.keys(body).length > 0) {
      problems.push("body: this operation takes no body")
    }
    return { query: coercedQuery, body: coercedBody, problems }
  }

  private bodySchema(op: Record<string, unknown>, type: string): Schema | undefined {
    return (op["requestBody"] as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.[type]?.schema
  }

  /** Checks a JSON body (already parsed) against the operation's `application/json` request schema. */
  checkJsonBody(match: MatchedOperation, body: unknown): Array<string> {
    const schema = this.bodySchema(this.op(match), "application/json")
    if (schema === undefined) return body === null ? [] : ["body: this operation takes no JSON body"]
    if (body === null) return ["body: missing (the operation takes a JSON body)"]
    const v = this.validator(schema)
    return v(body) ? [] : describe(v.errors, "body")
  }

  /** Checks an answer against the operation's response schema for its status (or `default`). */
  checkResponse(match: MatchedOperation, status: number, body: unknown): Array<string> {
    const responses = (this.op(match)["responses"] ?? {}) as Record<string, { content?: Record<string, { schema: Schema }> }>
    const response = responses[String(status)] ?? responses["default"]
    const schema = response?.content?.["application/json"]?.schema
    if (schema === undefined) return [`response: the description has no ${status} answer for ${match.method} ${match.template}`]
    const v = this.validator(schema)
    return v(body) ? [] : describe(v.errors, "response")
  }

  /** Checks a value against a named component schema (an event's object, say). */
  checkComponent(name: string, value: unknown): Array<string> {
    const v = this.validator(this.component(name))
    return v(value) ? [] : describe(v.errors, name)
  }
}
