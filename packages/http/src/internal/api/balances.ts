/** The balance groups (D12, after Stripe's /v1/balance and /v1/balance_transactions): one module per group, assembled in `Api.ts`. */
import { Balances, BalanceTransaction } from "@tender/core"
import { authenticated, group, list, query, retrieve } from "./shared.js"

/** The balance (D12). @since 0.1.0 */
export class BalanceGroup extends group("balance", "The balance: what the platform owes the merchant per currency, available and pending (D12).")
  .add(query("retrieve", "/balance", "Retrieve the balance", Balances.BalanceParams, BalanceTransaction.Balance))
  .pipe(authenticated)
{}

/** Balance transactions (D12). @since 0.1.0 */
export class BalanceTransactionsGroup extends group(
  "balanceTransactions",
  "Balance transactions: every movement of the balance, one per payment, refund, top-up, payout and adjustment (D12)."
)
  .add(retrieve("/balance_transactions/:id", "Retrieve a balance transaction", BalanceTransaction.Resource))
  .add(list("/balance_transactions", "List balance transactions", Balances.ListParams, BalanceTransaction.Resource, "BalanceTransactionList"))
  .pipe(authenticated)
{}
