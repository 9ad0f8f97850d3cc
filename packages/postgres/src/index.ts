/**
 * @since 0.1.0
 */
export * as PgDiagnosis from "./PgDiagnosis.js"
export * as PgMigrations from "./PgMigrations.js"
export * as PgStorage from "./PgStorage.js"
