/**
 * Tender's migrations as data: each `NNNN_name` entry creates or alters the tables of one
 * change, under the host's table prefix. `PgMigrations.run` applies the ones not yet recorded,
 * in key order. A new migration is a new file `migrations/NNNN_name.ts` exporting one function
 * named for the change (`NNNN_webhook_tools` exports `webhookTools`) from the table prefix to the
 * migration's Effect, and one `"NNNN_name": name(prefix)` entry below. (`migrations/initial.ts`
 * holds 0001 to 0010, written before, as one record.)
 */
import { webhookTools } from "./migrations/0011_webhook_tools.js"
import { retention } from "./migrations/0012_retention.js"
import { directoryChanges } from "./migrations/0013_directory_changes.js"
import { taskTraceparent } from "./migrations/0014_task_traceparent.js"
import { endpointChanges } from "./migrations/0015_endpoint_changes.js"
import { taskLeases } from "./migrations/0016_task_leases.js"
import { webhookFairness } from "./migrations/0017_webhook_fairness.js"
import { providerNotifications } from "./migrations/0018_provider_notifications.js"
import { providerAccounts } from "./migrations/0019_provider_accounts.js"
import { fairClaims } from "./migrations/0020_fair_claims.js"
import { balances } from "./migrations/0021_balances.js"
import { balanceBackfill } from "./migrations/0022_balance_backfill.js"
import { unusableNotices } from "./migrations/0023_unusable_notices.js"
import { providerAccountIds } from "./migrations/0024_provider_account_ids.js"
import { merchantInflight } from "./migrations/0025_merchant_inflight.js"
import { providerAttempts } from "./migrations/0026_provider_attempts.js"
import { topupAccounts } from "./migrations/0027_topup_accounts.js"
import { directoryTables } from "./migrations/0028_directory_tables.js"
import { initialMigrations } from "./migrations/initial.js"
import type { TablePrefix } from "./tables.js"

/** The migrations, keyed `NNNN_name` as `Migrator.fromRecord` requires. @since 0.1.0 @category migrations */
export const migrations = (prefix: TablePrefix) => ({
  ...initialMigrations(prefix),
  "0011_webhook_tools": webhookTools(prefix),
  "0012_retention": retention(prefix),
  "0013_directory_changes": directoryChanges(prefix),
  "0014_task_traceparent": taskTraceparent(prefix),
  "0015_endpoint_changes": endpointChanges(prefix),
  "0016_task_leases": taskLeases(prefix),
  "0017_webhook_fairness": webhookFairness(prefix),
  "0018_provider_notifications": providerNotifications(prefix),
  "0019_provider_accounts": providerAccounts(prefix),
  "0020_fair_claims": fairClaims(prefix),
  // The ledger backfill (0022) reads the history as every migration before it left it (D12).
  "0021_balances": balances(prefix),
  "0022_balance_backfill": balanceBackfill(prefix),
  "0023_unusable_notices": unusableNotices(prefix),
  "0024_provider_account_ids": providerAccountIds(prefix),
  "0025_merchant_inflight": merchantInflight(prefix),
  "0026_provider_attempts": providerAttempts(prefix),
  "0027_topup_accounts": topupAccounts(prefix),
  "0028_directory_tables": directoryTables(prefix)
})
