/**
 * How a record schema's fields are stored (`Table.fieldsOf`): the storage kind of each field read
 * from its schema's annotations and shape, apart from the table description so that `Table.ts`
 * holds one concept. The annotations' symbols live here so that this file imports nothing of
 * `Table.ts`, which re-exports them.
 */
import { Option, Schema, SchemaAST } from "effect"

/** `Table.StorageKindId`. */
export const StorageKindId: unique symbol = Symbol.for("@tender/core/Table/StorageKind")

/** `Table.MissingId`. */
export const MissingId: unique symbol = Symbol.for("@tender/core/Table/Missing")

/** `Table.StorageKind`. */
export type StorageKind = "text" | "amount" | "integer" | "millis" | "json" | "boolean" | "bytes"

/** `Table.Field`. */
export interface Field {
  /** The record's key, e.g. `merchantReference`. */
  readonly name: string
  /** The column or document field name, e.g. `merchant_reference`. */
  readonly column: string
  readonly kind: StorageKind
  readonly nullable: boolean
  /** What a record stored before this field existed holds in it; absent: null (`Table.OrNull`). */
  readonly missing?: unknown
}

/** `Table.columnName`. */
export const columnName = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

const isNull = (ast: SchemaAST.AST) => SchemaAST.isLiteral(ast) && ast.literal === null

const kindOf = (ast: SchemaAST.AST, path: string): StorageKind => {
  const annotated = SchemaAST.getAnnotation<StorageKind>(ast, StorageKindId)
  if (Option.isSome(annotated)) return annotated.value
  switch (ast._tag) {
    case "Refinement":
      return kindOf(ast.from, path)
    case "Transformation":
      return kindOf(ast.to, path)
    case "Suspend":
      return kindOf(ast.f(), path)
    case "TypeLiteral":
    case "TupleType":
      return "json"
    case "StringKeyword":
    case "TemplateLiteral":
      return "text"
    case "BooleanKeyword":
      return "boolean"
    case "Literal":
      if (typeof ast.literal === "string") return "text"
      if (typeof ast.literal === "boolean") return "boolean"
      break
    case "Union": {
      const kinds = new Set(ast.types.filter((t) => !isNull(t)).map((t) => kindOf(t, path)))
      if (kinds.size === 1) return [...kinds][0]!
      if (kinds.has("json")) return "json"
      break
    }
  }
  // A number could be a time, a count or an amount: the record must say which.
  throw new Error(`Table: field ${path} needs a storage kind (Table.Millis, Table.Integer, Table.AmountText)`)
}

/** `Table.fieldsOf`. */
export const fieldsOf = (record: Schema.Schema.Any): ReadonlyArray<Field> => {
  const ast = Schema.typeSchema(record).ast
  if (!SchemaAST.isTypeLiteral(ast)) throw new Error("Table: a record must be a Schema.Struct")
  return ast.propertySignatures.map((p) => {
    const name = String(p.name)
    const nullable = SchemaAST.isUnion(p.type) && p.type.types.some(isNull)
    const missing = SchemaAST.getAnnotation<unknown>(p.type, MissingId)
    return { name, column: columnName(name), kind: kindOf(p.type, name), nullable, ...(Option.isSome(missing) ? { missing: missing.value } : {}) }
  })
}
