// @ts-check
/**
 * What Acme Pay can serve, in Tender's terms: Acme's one catalogue, declared by both adapters
 * (the Effect one, `AcmePay.ts`, and the plain-JavaScript one, `acme-pay.js`). Discovery and
 * routing read only this. Plain JavaScript, so the adapter without Effect loads it as it is;
 * `@ts-check` holds it to the Provider port's type, as the TypeScript adapter's own list was.
 *
 * @type {ReadonlyArray<import("@tender/core").Provider.ProviderMethod>}
 */
export const methods = [
  {
    method: "th_promptpay",
    providerMethod: "PROMPTPAY",
    category: "bank_transfer",
    label: "PromptPay QR (Acme)",
    nextActionType: "display_qr_code",
    countries: ["TH"],
    currencies: ["THB"],
    minAmount: "2000",
    maxAmount: "5000000",
    environments: ["live"],
    checkoutModes: ["hosted", "merchant"],
    banks: [],
    payer: { customer_name: { required: true } },
    // Acme refunds a PromptPay charge to the account it was paid from (D10).
    refunds: "source"
  }
]
