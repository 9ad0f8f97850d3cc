/**
 * The one adjustment the generated OpenAPI document needs, applied as the API's
 * `OpenApi.Transform` annotation: everything else in it comes from the definition.
 */

type Json = Record<string, any>

const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

/** D1: every response carries its request id, `req_` and 24 base62 characters (D4). */
const requestIdHeader: Json = {
  description: "The id of this request (D1): equal to `error.request_id` on an error; quote it when asking about a request.",
  required: true,
  schema: { type: "string", pattern: "^req_[0-9A-Za-z]{24}$" }
}

/** 4.9.6: a conflict a retry resolves carries it; a conflict that stays (4.9.5) does not. */
const retryAfterHeader: Json = {
  description:
    "Only on an `idempotency_conflict` whose original request is still in flight (4.9.6): the seconds to wait before sending the same request again. " +
    "A conflict without it (the key used with a different request, 4.9.5) will not resolve by retrying.",
  required: false,
  schema: { type: "string", pattern: "^[0-9]+$" }
}

/** Remove Effect's fixed `$id`s (`/schemas/unknown`, `/schemas/any`, …) wherever they appear. */
const dropEffectIds = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) dropEffectIds(item)
  } else if (typeof node === "object" && node !== null) {
    const o = node as Json
    if (typeof o.$id === "string" && o.$id.startsWith("/schemas/")) delete o.$id
    for (const value of Object.values(o)) dropEffectIds(value)
  }
}

const schemaRef = "#/components/schemas/"

/** The component schemas `node` refers to, by name, in the order they appear. */
const usedBy = (node: unknown, into: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(node)) {
    for (const item of node) usedBy(item, into)
  } else if (typeof node === "object" && node !== null) {
    const ref = (node as Json).$ref
    if (typeof ref === "string" && ref.startsWith(schemaRef)) into.add(ref.slice(schemaRef.length))
    for (const value of Object.values(node as Json)) usedBy(value, into)
  }
  return into
}

/**
 * The component schemas reordered so that each comes after every schema it refers to (a
 * depth-first topological order, the document's order among equals). Generators that emit one
 * `const` per schema in document order (orval) otherwise read a schema before it is defined
 * (`Cannot access 'EventType' before initialization`). A cycle keeps its first-seen order.
 */
export const definedBeforeUse = (schemas: Json): Json => {
  const ordered: Json = {}
  const visiting = new Set<string>()
  const visit = (name: string): void => {
    if (name in ordered || visiting.has(name) || !(name in schemas)) return
    visiting.add(name)
    for (const used of usedBy(schemas[name])) visit(used)
    visiting.delete(name)
    ordered[name] = schemas[name]
  }
  for (const name of Object.keys(schemas)) visit(name)
  return ordered
}

const refsOf = (schema: Json | undefined): ReadonlyArray<Json> => schema === undefined ? [] : Array.isArray(schema.anyOf) ? schema.anyOf : [schema]

/**
 * - Every `HttpApi` carries Effect's `HttpApiDecodeError` (400) and it cannot be removed from
 *   the definition; this API never sends its body (decode failures answer `validation_failed`,
 *   D1), so it leaves the document, with the `Issue` and `PropertyKey` schemas only it uses.
 * - A document without `servers` leaves clients to guess the base URL; unless the host set
 *   one, the API is beside the document: `.`, which OpenAPI resolves against the document's
 *   own URL (so `/openapi.json` gives `/`, and a document served under a prefix its prefix).
 * - An error response is described by the codes it can carry; HttpApi would take the name of
 *   the first schema of the status only.
 * - Header schemas need lowercase keys to decode; the document names headers as clients write
 *   them (`Idempotency-Key`).
 * - Effect names its schemas of `unknown` and `any` with a fixed `$id` (`/schemas/unknown`) at every
 *   use; two uses give one `$id` to two schemas, which a JSON Schema validator (ajv) refuses to
 *   compile. The ids say nothing (the schemas are `{}` otherwise), so they leave the document.
 * - Every response carries `Request-Id` (D1), equal to an error body's `request_id`: declared on each;
 *   a 409 that can be `idempotency_conflict` declares `Retry-After` (4.9.6 in flight).
 * - Every component schema is defined before a schema that uses it (`definedBeforeUse`).
 *
 * @since 0.1.0
 */
export const documentAsClientsSee = (spec: Json): Json => {
  const schemas: Json = spec.components?.schemas ?? {}
  delete schemas.HttpApiDecodeError
  delete schemas.Issue
  delete schemas.PropertyKey // used by `Issue` alone (its `path`)
  const codeOf = (ref: Json): string | undefined => {
    const name = typeof ref.$ref === "string" ? ref.$ref.replace("#/components/schemas/", "") : undefined
    return name === undefined ? undefined : schemas[name]?.properties?.error?.properties?.code?.enum?.[0]
  }
  for (const operations of Object.values(spec.paths as Json)) {
    for (const op of Object.values(operations as Json) as Array<Json>) {
      for (const [status, response] of Object.entries(op.responses as Json) as Array<[string, Json]>) {
        response.headers = { ...response.headers, "Request-Id": requestIdHeader }
        if (Number(status) < 400) continue
        const content = response.content?.["application/json"]
        const members = refsOf(content?.schema).filter((m) => m.$ref !== decodeErrorRef)
        if (members.length === 0) {
          delete op.responses[status]
          continue
        }
        content.schema = members.length === 1 ? members[0] : { anyOf: members }
        const codes = members.map(codeOf).filter((c): c is string => c !== undefined)
        if (codes.length > 0) response.description = `Error: ${[...new Set(codes)].join(" or ")}`
        if (codes.includes("idempotency_conflict")) response.headers["Retry-After"] = retryAfterHeader
      }
      for (const param of (op.parameters ?? []) as Array<Json>) {
        if (param.in === "header") {
          param.name = String(param.name).replace(/(^|-)([a-z])/g, (_m: string, d: string, c: string) => d + c.toUpperCase())
        }
      }
    }
  }
  dropEffectIds(spec)
  if (spec.components?.schemas !== undefined) spec.components.schemas = definedBeforeUse(spec.components.schemas)
  if (!Array.isArray(spec.servers) || spec.servers.length === 0) {
    spec.servers = [{ url: ".", description: "Beside this document: the URL it was served from, without openapi.json" }]
  }
  return spec
}
