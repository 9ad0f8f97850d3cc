/**
 * Migration 0023 (D11; docs/reliability.md, "Provider notices that cannot apply"): a stored notice
 * may end `unusable`, when it can never apply. The status check of migration 0018 is replaced by
 * one that admits it; found by its definition, since PostgreSQL named it after the prefixed table
 * (and shortens a long name).
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { ProviderNotification } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const unusableNotices = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const table = tables(prefix).of(ProviderNotification.table)
    const checks = yield* sql<{ readonly conname: string }>`SELECT conname FROM pg_constraint
      WHERE conrelid = ${`"${table}"`}::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%'`
    for (const { conname } of checks) yield* sql`ALTER TABLE ${sql(table)} DROP CONSTRAINT ${sql(conname)}`
    const statuses = sql.literal(ProviderNotification.Status.literals.map((s) => `'${s}'`).join(", "))
    yield* sql`ALTER TABLE ${sql(table)} ADD CONSTRAINT status_known CHECK (status IN (${statuses}))`
  })
