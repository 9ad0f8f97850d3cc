/**
 * @since 0.1.0
 */
export * as PgMigrations from "./PgMigrations.js"
export * as PgStorage from "./PgStorage.js"
