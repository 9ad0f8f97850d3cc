/** The bench's tables on PostgreSQL: dropped by prefix after a run. */
import { execFileSync } from "node:child_process"

/** Drop the bench's tables, and the functions the migrations made (the commit's guard). */
export const dropPrefix = (prefix: string, databaseUrl: string) =>
  execFileSync("psql", [databaseUrl, "-qAtc", `DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, '${prefix}') LOOP EXECUTE format('DROP TABLE %I', t); END LOOP; FOR t IN SELECT p.oid::regprocedure::text FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND starts_with(p.proname, '${prefix}') LOOP EXECUTE 'DROP FUNCTION ' || t; END LOOP; END $$`], { stdio: "ignore" })
