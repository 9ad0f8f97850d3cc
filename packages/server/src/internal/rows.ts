/**
 * The shapes of the Promise API's methods on merchant endpoints: what a method takes, in order
 * (the resource id, a body or list query, the options naming the merchant), and the core
 * operation it runs, the one the HTTP handler of the same endpoint runs. `endpoints.ts` gives
 * every endpoint of the HTTP API one of these rows; `operations.ts` runs them.
 */
import type { ApiResponse, Authentication, Operation, Tender as CoreTender } from "@tender/core"
import type { Effect, Layer, Schema } from "effect"
import type * as Api from "./scope.js"

/** Every service an operation may need: what `createTender` builds. */
export type Services = Layer.Layer.Success<ReturnType<typeof CoreTender.layer<never, never>>>

/** What a row's operation receives, every argument decoded. */
export interface Input<P> {
  /** The merchant the options name, this call's request id and its `Idempotency-Key`. */
  readonly context: Operation.RequestContext
  /** The resource id (`""` for a method on none). */
  readonly id: string
  readonly params: P
}

/** How a method's arguments are read. */
export interface Shape {
  /** The first argument is the resource id. */
  readonly id: boolean
  /** The argument after it: a body (`params`), a list query (`query`, written as the URL would carry it) or a file's bytes. */
  readonly params?: {
    readonly name: "params" | "query" | "file"
    readonly schema: Schema.Schema.AnyNoContext
    readonly optional: boolean
  }
  /** The last argument: the merchant's scope, with an `Idempotency-Key` on a POST; `none` for an endpoint without authentication. */
  readonly options: "scope" | "write" | "none"
  /** Whether the operation answers a response core rendered (a POST, stored for its key) rather than a value. */
  readonly rendered: boolean
}

/** One method: its shape and its operation. `Args` types its arguments; the answer's type is the endpoint's success. */
export interface Row<Args extends ReadonlyArray<unknown>> {
  readonly shape: Shape
  readonly run: (input: Input<never>) => Effect.Effect<unknown, unknown, Services>
  /** Carries `Args` for the method's type; never set. */
  readonly args?: Args
}

/** A list query's values as in the URL; numbers and arrays are accepted and written as the URL would. */
export type Query<Q> = { readonly [K in keyof Q]?: Q[K] | number | ReadonlyArray<string> | undefined }

type Encoded<S extends Schema.Schema.AnyNoContext> = Schema.Schema.Encoded<S>
type Type<S extends Schema.Schema.AnyNoContext> = Schema.Schema.Type<S>
type Principal = Authentication.Principal
type Rendered = Effect.Effect<ApiResponse.ApiResponse, unknown, Services>
type Read = Effect.Effect<unknown, unknown, Services>

const body = (schema: Schema.Schema.AnyNoContext, optional = false) => ({ name: "params" as const, schema, optional })
const query = (schema: Schema.Schema.AnyNoContext, optional = true) => ({ name: "query" as const, schema, optional })

/** `POST /<resources>` (4.1, 4.9): `create(params, options)`, under the caller's `Idempotency-Key`. */
export const create = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (context: Operation.RequestContext, params: Type<S>) => Rendered
): Row<[params: Encoded<S>, options: Api.WriteOptions]> => ({
  shape: { id: false, params: body(schema), options: "write", rendered: true },
  run: (input) => op(input.context, input.params)
})

/** `GET /<resources>/:id` (4.2): `retrieve(id, options)`. */
export const retrieve = (op: (principal: Principal, id: string) => Read): Row<[id: string, options: Api.MerchantScope]> => ({
  shape: { id: true, options: "scope", rendered: false },
  run: (input) => op(input.context.principal, input.id)
})

/** `GET /<resources>` (4.3, D6): `list(query?, options)`, a page newest first. */
export const list = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (principal: Principal, query: Type<S>) => Read
): Row<[query: Query<Encoded<S>> | undefined, options: Api.MerchantScope]> => ({
  shape: { id: false, params: query(schema), options: "scope", rendered: false },
  run: (input) => op(input.context.principal, input.params)
})

/** A read of the caller's scope alone, without id or query (the balance, D12): `name(options)`. */
export const scoped = (op: (principal: Principal) => Read): Row<[options: Api.MerchantScope]> => ({
  shape: { id: false, options: "scope", rendered: false },
  run: (input) => op(input.context.principal)
})

/** A read whose query is required (discovery, 4.6): `name(query, options)`. */
export const read = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (principal: Principal, query: Type<S>) => Read
): Row<[query: Query<Encoded<S>>, options: Api.MerchantScope]> => ({
  shape: { id: false, params: query(schema, false), options: "scope", rendered: false },
  run: (input) => op(input.context.principal, input.params)
})

/** A list under one resource (a webhook endpoint's attempts): `name(id, query?, options)`. */
export const listOf = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (principal: Principal, id: string, query: Type<S>) => Read
): Row<[id: string, query: Query<Encoded<S>> | undefined, options: Api.MerchantScope]> => ({
  shape: { id: true, params: query(schema), options: "scope", rendered: false },
  run: (input) => op(input.context.principal, input.id, input.params)
})

/** A POST on one resource without a body (confirm, cancel, enable, delete): `name(id, options)`. */
export const act = (op: (context: Operation.RequestContext, id: string) => Rendered): Row<[id: string, options: Api.WriteOptions]> => ({
  shape: { id: true, options: "write", rendered: true },
  run: (input) => op(input.context, input.id)
})

/** A POST on one resource with a body: `name(id, params, options)`. */
export const actWith = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (context: Operation.RequestContext, id: string, params: Type<S>) => Rendered
): Row<[id: string, params: Encoded<S>, options: Api.WriteOptions]> => ({
  shape: { id: true, params: body(schema), options: "write", rendered: true },
  run: (input) => op(input.context, input.id, input.params)
})

/** A POST on one resource whose body may be left out (HTTP: `{}` or absent): `name(id, params | undefined, options)`. */
export const actWithOptional = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  op: (context: Operation.RequestContext, id: string, params: Type<S>) => Rendered
): Row<[id: string, params: Encoded<S> | undefined, options: Api.WriteOptions]> => ({
  shape: { id: true, params: body(schema, true), options: "write", rendered: true },
  run: (input) => op(input.context, input.id, input.params)
})

/** A file upload (HTTP: multipart, part `file`): `name(bytes, options)`. */
export const upload = (
  schema: Schema.Schema<Uint8Array, Uint8Array>,
  op: (context: Operation.RequestContext, bytes: Uint8Array) => Rendered
): Row<[file: Uint8Array, options: Api.WriteOptions]> => ({
  shape: { id: false, params: { name: "file", schema, optional: false }, options: "write", rendered: true },
  run: (input) => op(input.context, input.params)
})

/** A read without authentication (the event type catalogue): `name()`. */
export const open = (op: Read): Row<[]> => ({
  shape: { id: false, options: "none", rendered: false },
  run: () => op
})
