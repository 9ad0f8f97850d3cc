/**
 * @since 0.1.0
 */
export * as StorageContract from "./StorageContract.js"
