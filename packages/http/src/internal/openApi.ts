/**
 * The one adjustment the generated OpenAPI document needs, applied as the API's
 * `OpenApi.Transform` annotation: everything else in it comes from the definition.
 */

type Json = Record<string, any>

const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

const refsOf = (schema: Json | undefined): ReadonlyArray<Json> =>
  schema === undefined ? [] : Array.isArray(schema.anyOf) ? schema.anyOf : [schema]

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
      }
      for (const param of (op.parameters ?? []) as Array<Json>) {
        if (param.in === "header") {
          param.name = String(param.name).replace(/(^|-)([a-z])/g, (_m: string, d: string, c: string) => d + c.toUpperCase())
        }
      }
    }
  }
  if (!Array.isArray(spec.servers) || spec.servers.length === 0) {
    spec.servers = [{ url: ".", description: "Beside this document: the URL it was served from, without openapi.json" }]
  }
  return spec
}
