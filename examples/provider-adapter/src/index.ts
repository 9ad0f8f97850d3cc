/**
 * The Acme Pay adapter package: install it beside the simulator with
 * `Tender.layer({ providers: [Simulator.make(…), AcmePay.make(…)] }, …)`.
 */
export * as AcmePay from "./AcmePay.js"
export * as FakeAcme from "./FakeAcme.js"
