/**
 * @since 0.1.0
 */
export * as MongoStorage from "./MongoStorage.js"
