/**
 * The client's methods, one per operation of the document, named by its operation id
 * (`paymentIntents.create` is `client.paymentIntents.create`): their types are read from the
 * generated `operations`, their routes from the generated `operationRoutes`, so a new endpoint
 * of the API is a method here once `npm run openapi:types` regenerates `openapi.ts`.
 */
import type { ListPage } from "../ListPage.js"
import type { operationRoutes, operations } from "../openapi.js"
import type { Page } from "../Resources.js"

/** What one call may add. @since 0.1.0 @category models */
export interface RequestOptions {
  /** Aborts the call, retries included. */
  readonly signal?: AbortSignal
}

/** What one POST may add. @since 0.1.0 @category models */
export interface PostOptions extends RequestOptions {
  /** The `Idempotency-Key` (4.9). Default: a new UUID for this call, reused by its retries. */
  readonly idempotencyKey?: string
}

/** A file sent as a multipart body, in the part `file` (an asset, a receipt: 4.4). @since 0.1.0 @category models */
export interface FileBody {
  readonly file: Blob
}

type OperationId = keyof operations
type Route<K extends OperationId> = (typeof operationRoutes)[K]

/** The body a JSON request carries, a file, or either, as the route takes. */
type BodyOf<K extends OperationId> = Route<K> extends { readonly body: infer B }
  ? (B extends "json" | "json-or-file" ? JsonBody<operations[K]> : never) | (B extends "file" | "json-or-file" ? FileBody : never)
  : never
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer J } } } ? J : never

type PathArgs<K extends OperationId> = Route<K>["path"] extends `${string}{id}${string}` ? [id: string] : []
type BodyArgs<K extends OperationId> = Route<K> extends { readonly bodyRequired: true } ? [body: BodyOf<K>]
  : Route<K> extends { readonly bodyRequired: false } ? [body?: BodyOf<K>]
  : []
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
type QueryArgs<K extends OperationId> = Route<K> extends { readonly query: true }
  ? operations[K]["parameters"] extends { query: object } ? [query: QueryOf<operations[K]>] : [query?: QueryOf<operations[K]>]
  : []

/** The JSON of the operation's 2xx answer. */
type Success<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 ? R[S] extends { content: { "application/json": infer J } } ? J : never : never }[keyof R]
  : never
type Item<P> = P extends { readonly data: ReadonlyArray<infer T> } ? T : never
type Answer<K extends OperationId> = Route<K> extends { readonly list: true }
  ? ListPage<Item<Success<operations[K]>>, Success<operations[K]> & Page<Item<Success<operations[K]>>>>
  : Promise<Success<operations[K]>>
type OptionsOf<K extends OperationId> = Route<K>["method"] extends "GET" ? RequestOptions : PostOptions

/** The method of one operation: the id, the body or query, then the call's options. */
export type Method<K extends OperationId> = (...args: [...PathArgs<K>, ...BodyArgs<K>, ...QueryArgs<K>, options?: OptionsOf<K>]) => Answer<K>

type GroupOf<K> = K extends `${infer G}.${string}` ? G : never

/** Every operation's method, under its group. @since 0.1.0 @category models */
export type Methods = {
  readonly [G in GroupOf<OperationId>]: {
    readonly [K in OperationId as K extends `${G}.${infer E}` ? E : never]: Method<K>
  }
}
