/**
 * Decode issues as a client reads them (D1: never an internal message in `message`). Effect's
 * fallback text for a value of the wrong type is `Expected <schema>, actual <value>`, and names
 * the schema by its identifier (`PaymentMethodOptions`) or prints its TypeScript type
 * (`{ readonly type: TopupSourceType; … }`); a value outside a union of literals gets one such
 * issue per member. Fields whose schemas carry their own message (`Amount`, `metadata`) never
 * reach this: their text is already the client's.
 */
import { SchemaAST } from "effect"
import * as Routes from "./routes.js"

/** What a named schema of the API's requests is, in a client's words: `an object`, `an array`, `one of: a, b`. */
const kinds: ReadonlyMap<string, string> = (() => {
  const out = new Map<string, string>()
  const seen = new Set<SchemaAST.AST>()
  const kindOf = (ast: SchemaAST.AST): string | undefined => {
    switch (ast._tag) {
      case "TypeLiteral":
        return "an object"
      case "TupleType":
        return "an array"
      case "Refinement":
        return kindOf(ast.from)
      case "Transformation":
        return kindOf(ast.to)
      case "Suspend":
        return kindOf(ast.f())
      case "Union": {
        const literals = ast.types.filter(SchemaAST.isLiteral)
        return literals.length === ast.types.length ? `one of: ${literals.map((l) => String(l.literal)).join(", ")}` : undefined
      }
      default:
        return undefined
    }
  }
  const walk = (ast: SchemaAST.AST): void => {
    if (seen.has(ast)) return
    seen.add(ast)
    const id = SchemaAST.getIdentifierAnnotation(ast)
    if (id._tag === "Some") {
      const kind = kindOf(ast)
      if (kind !== undefined) out.set(id.value, kind)
    }
    switch (ast._tag) {
      case "TypeLiteral":
        for (const p of ast.propertySignatures) walk(p.type)
        for (const i of ast.indexSignatures) walk(i.type)
        return
      case "TupleType":
        for (const e of ast.elements) walk(e.type)
        for (const r of ast.rest) walk(r.type)
        return
      case "Union":
        for (const t of ast.types) walk(t)
        return
      case "Refinement":
        return walk(ast.from)
      case "Transformation":
        walk(ast.from)
        return walk(ast.to)
      case "Suspend":
        return walk(ast.f())
      default:
        return
    }
  }
  for (const { endpoint, payloads } of Routes.defined) {
    for (const payload of payloads.values()) walk(payload.ast)
    if (endpoint.urlParamsSchema._tag === "Some") walk(endpoint.urlParamsSchema.value.ast)
  }
  return out
})()

const expectedActual = /^Expected ([\s\S]+), actual ([\s\S]*)$/
const literal = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$/

/** What `Expected <text>` asks for, in a client's words; undefined when it cannot be said. */
const describe = (text: string): string | undefined => {
  if (text.startsWith("{")) return "an object"
  if (/^(?:Readonly)?Array<|^readonly \[|^\[/.test(text)) return "an array"
  if (text === "string" || text === "a string") return "a string"
  if (text === "number" || text === "a number") return "a number"
  if (text === "boolean") return "true or false"
  if (literal.test(text)) return text.startsWith("\"") ? String(JSON.parse(text)) : text
  return kinds.get(text)
}

/** An issue as the middleware renders it: the param as clients name it, and its message. */
export interface Issue {
  readonly param: string
  readonly tag: string
  readonly message: string
}

/**
 * The issues with Effect's type texts replaced: the members of a union of literals become one
 * issue (`must be one of: a, b`), and `Expected X, actual Y` becomes `must be <what X is>`.
 * Other messages pass unchanged.
 */
export const plain = (issues: ReadonlyArray<Issue>): ReadonlyArray<Issue> => {
  const literalsAt = new Map<string, Array<string>>()
  for (const issue of issues) {
    const m = expectedActual.exec(issue.message)
    if (m !== null && literal.test(m[1]!)) literalsAt.set(issue.param, [...(literalsAt.get(issue.param) ?? []), describe(m[1]!)!])
  }
  const out: Array<Issue> = []
  const merged = new Set<string>()
  for (const issue of issues) {
    const m = expectedActual.exec(issue.message)
    if (m === null) {
      out.push(issue)
      continue
    }
    const members = literalsAt.get(issue.param)
    if (members !== undefined && members.length > 1 && literal.test(m[1]!)) {
      if (merged.has(issue.param)) continue
      merged.add(issue.param)
      out.push({ ...issue, message: `must be one of: ${members.join(", ")}` })
      continue
    }
    const what = describe(m[1]!)
    out.push({ ...issue, message: what === undefined ? "is not valid" : `must be ${what}` })
  }
  return out
}
