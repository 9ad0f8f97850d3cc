/** The bench's tables on PostgreSQL: dropped by prefix after a run. */
import { execFileSync } from "node:child_process"

/** Drop the bench's tables, and the functions the migrations made (the commit's guard). */
export const dropPrefix = (prefix: string, databaseUrl: string) =>
  execFileSync("psql", [
    databaseUrl,
    "-qAtc",
    `DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, '${prefix}') LOOP EXECUTE format('DROP TABLE %I', t); END LOOP; FOR t IN SELECT p.oid::regprocedure::text FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND starts_with(p.proname, '${prefix}') LOOP EXECUTE 'DROP FUNCTION ' || t; END LOOP; END $$`
  ], { stdio: "ignore" })

/**
 * ANALYZE the bench's tables, as autovacuum does within a minute or so of a fill: every plan
 * measured is then the one a running system has, whichever minute the scenario runs in. Without
 * it the ceilings' get (the baseline statement, with the scope in its WHERE clause) walked
 * the merchant's list index until autovacuum came by, and read 582 req/s in one run and 1,556 in
 * another (docs/performance.md, "A get by the primary key alone").
 */
export const analyzePrefix = (prefix: string, databaseUrl: string) =>
  execFileSync("psql", [
    databaseUrl,
    "-qAtc",
    `DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, '${prefix}') LOOP EXECUTE format('ANALYZE %I', t); END LOOP; END $$`
  ], { stdio: "ignore" })
