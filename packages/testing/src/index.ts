/**
 * @since 0.1.0
 */
export * as StorageContract from "./StorageContract.js"
/**
 * The contract suite's data builders (records, scopes, keys), for an adapter's own tests.
 *
 * @since 0.1.0
 */
export * as Fixtures from "./internal/fixtures.js"
/**
 * @since 0.1.0
 */
export * as ProviderContract from "./ProviderContract.js"
