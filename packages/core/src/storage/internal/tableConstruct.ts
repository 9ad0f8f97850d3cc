/**
 * How records are built fast from their schema (`Table.constructor`, `Table.construct`), apart
 * from the table description so that `Table.ts` holds one concept.
 */
import { Schema } from "effect"

/**
 * `Table.constructor`. Why it is fast: Effect's `make` copies the props with a spread and then
 * adds each missing default to the copy; V8 gives such a copy a shape it rebuilds on every added
 * property, so a payment intent (18 defaults) was slow to make (docs/performance.md, "HTTP and
 * core"). Here the defaults go into a new object first, in the
 * schema's order, and the props over them: the same record without the rebuilds (core's create
 * took 0.7 of the CPU it took before, by `npm run bench:compare`).
 */
export const constructor = <F extends Schema.Struct.Fields>(
  schema: Schema.Struct<F>
): (props: Schema.Struct.Constructor<F>) => Schema.Struct.Type<F> => {
  const defaults: Array<readonly [PropertyKey, () => unknown]> = []
  for (const key of Reflect.ownKeys(schema.fields)) {
    const field: unknown = schema.fields[key as keyof F]
    if (!Schema.isPropertySignature(field)) continue
    const ast = field.ast
    const value = ast._tag === "PropertySignatureDeclaration" ? ast.defaultValue : ast.to.defaultValue
    if (value !== undefined) defaults.push([key, value as () => unknown])
  }
  return (props) => {
    const out: Record<PropertyKey, unknown> = {}
    for (const [key, value] of defaults) out[key] = value()
    Object.assign(out, props)
    // An explicit undefined takes the default too, as `make` gives it.
    for (const [key, value] of defaults) if (out[key] === undefined) out[key] = value()
    return out as Schema.Struct.Type<F>
  }
}

const constructors = new WeakMap<object, (props: never) => unknown>()

/** `Table.construct`: one constructor per schema, kept by the schema object. */
export const construct = <F extends Schema.Struct.Fields>(schema: Schema.Struct<F>, props: Schema.Struct.Constructor<F>): Schema.Struct.Type<F> => {
  let made = constructors.get(schema) as ((props: Schema.Struct.Constructor<F>) => Schema.Struct.Type<F>) | undefined
  if (made === undefined) constructors.set(schema, made = constructor(schema))
  return made(props)
}
