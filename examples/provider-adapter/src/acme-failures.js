// @ts-check
/**
 * Acme's decline and refund codes in Tender's words, for both adapters: Acme's own codes never
 * reach a merchant (D11, docs/provider-adapters.md); a code this table does not know is Tender's
 * general one for the failure.
 */

/** @type {Readonly<Record<string, string>>} */
const tenderCodes = {
  insufficient_funds: "insufficient_funds",
  account_closed: "account_closed",
  do_not_honor: "payment_declined",
  qr_expired: "payment_expired"
}

/**
 * @param {string | undefined} acmeCode Acme's `decline_code` or `failure_code`
 * @param {string} otherwise Tender's code for a failure Acme names no known code for
 * @returns {string}
 */
export const tenderCodeOf = (acmeCode, otherwise) =>
  acmeCode !== undefined && Object.hasOwn(tenderCodes, acmeCode) ? /** @type {string} */ (tenderCodes[acmeCode]) : otherwise
