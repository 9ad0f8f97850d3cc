/**
 * The options every Promise API call names: which merchant, in which environment, and a POST's
 * `Idempotency-Key`; and the list page. Re-exported by `Api.ts`; kept apart so the method table
 * (`endpoints.ts`, `rows.ts`) can name them without importing the module that imports it.
 */
/** @since 0.1.0 @category models */
export type Environment = "test" | "live"

/** Which merchant's resources, in which environment. @since 0.1.0 @category options */
export interface MerchantScope {
  readonly merchant: string
  readonly environment: Environment
}

/**
 * A POST's options: the merchant, and an `Idempotency-Key` as the HTTP API takes it (4.9, D5):
 * the same key with the same body answers the first result again; with another body, 409
 * `idempotency_conflict`.
 *
 * @since 0.1.0 @category options
 */
export interface WriteOptions extends MerchantScope {
  readonly idempotencyKey?: string | undefined
}

/** A page of a list, newest first (D6): pass `next_cursor` as `cursor` for the next page. @since 0.1.0 @category models */
export interface ListPage<T> {
  readonly data: ReadonlyArray<T>
  readonly has_more: boolean
  readonly next_cursor: string | null
}
