/**
 * Migration 0015 (a create without the webhook-endpoint read): a notification on
 * `<prefix>directory` after every statement that changes `<prefix>webhook_endpoints`, whoever
 * runs it, with the same function as migration 0013's triggers. Its payload is the table's name
 * (`TG_TABLE_NAME`), so a process drops only its cached endpoints, not its credentials
 * (internal/directory.ts; docs/performance.md, "The create's webhook endpoints, cached").
 */
import { SqlClient } from "@effect/sql/SqlClient"
import { WebhookEndpoint } from "@tender/core"
import { Effect } from "effect"
import type { TablePrefix } from "../tables.js"
import { tables } from "../tables.js"

/** @since 0.1.0 @category migrations */
export const endpointChanges = (prefix: TablePrefix) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient).withoutTransforms()
    const t = tables(prefix)
    const table = t.of(WebhookEndpoint.table)
    // A validated prefix and fixed words (as in 0013): safe to quote in the text. Statement-level,
    // so an update of many endpoints is one notification, delivered at commit.
    yield* sql.unsafe(`CREATE TRIGGER "${table}_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
      FOR EACH STATEMENT EXECUTE FUNCTION "${t.directoryChanged}"()`)
  })
