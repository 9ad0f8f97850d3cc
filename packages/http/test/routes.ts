/**
 * What the route tests share (RoutesErrorCodes.test.ts, its route groups in routesMatrix*.ts,
 * RoutesIdempotency.test.ts): stores that fail, a gated provider, the operations of
 * /openapi.json and the error-code matrix's context, which records every status and code it sees.
 */
import { assert } from "@effect/vitest"
import { StorageError } from "@tender/core"
import { jsonHeaders, promptpayNamed as promptpay } from "@tender/repo-test-support"
import type { CallOptions, Key, Reply } from "./harness.js"
import { app, assertError, failingDirectory, failingStorage } from "./harness.js"

export const json = jsonHeaders

/** A store that cannot be reached: every operation is StorageUnavailable (503). */
export const unavailableStorage = failingStorage(() => new StorageError.StorageUnavailable({ message: "connection refused" }))
/** The key directory unreachable for now: every authenticated route answers 503. */
export const unavailableDirectory = failingDirectory(() => new StorageError.StorageUnavailable({ message: "directory restarting" }))

/** The error codes a documented response can carry, read from its schemas (each a D1 body with one code). */
export const documentedCodes = (doc: any, response: any): Array<string> => {
  const schema = response.content["application/json"].schema
  return (schema.anyOf ?? [schema]).map((member: { $ref: string }) => {
    const body = doc.components.schemas[member.$ref.replace("#/components/schemas/", "")]
    assert.deepStrictEqual(body.required, ["error"], member.$ref)
    assert.includeMembers(body.properties.error.required, ["code", "message", "request_id"], member.$ref)
    assert.sameMembers(Object.keys(body.properties.error.properties), ["code", "message", "param", "details", "request_id"], member.$ref)
    const codes = body.properties.error.properties.code.enum
    assert.lengthOf(codes, 1, member.$ref)
    return codes[0]
  })
}

export type Op =
  | "paymentIntents.create"
  | "paymentIntents.retrieve"
  | "paymentIntents.list"
  | "paymentIntents.confirm"
  | "paymentIntents.receipt"
  | "paymentIntents.cancel"
  | "assets.upload"
  | "payoutIntents.create"
  | "payoutIntents.retrieve"
  | "payoutIntents.list"
  | "payoutIntents.cancel"
  | "refunds.create"
  | "refunds.retrieve"
  | "refunds.list"
  | "topupIntents.create"
  | "topupIntents.retrieve"
  | "topupIntents.list"
  | "topupIntents.receipt"
  | "webhookEndpoints.create"
  | "webhookEndpoints.list"
  | "webhookEndpoints.retrieve"
  | "webhookEndpoints.delete"
  | "paymentMethods.options"
  | "webhookEndpoints.attempts"
  | "webhookEndpoints.resend"
  | "webhookEndpoints.rotateSecret"
  | "webhookEndpoints.enable"
  | "events.list"
  | "events.retrieve"
  | "balance.retrieve"
  | "balanceTransactions.retrieve"
  | "balanceTransactions.list"
  | "webhookEventTypes.catalogue"
  | "openapi"

export const documented: Record<Exclude<Op, "openapi">, readonly [string, string]> = {
  "paymentIntents.create": ["/payment_intents", "post"],
  "paymentIntents.retrieve": ["/payment_intents/{id}", "get"],
  "paymentIntents.list": ["/payment_intents", "get"],
  "paymentIntents.confirm": ["/payment_intents/{id}/confirm", "post"],
  "paymentIntents.receipt": ["/payment_intents/{id}/receipt", "post"],
  "paymentIntents.cancel": ["/payment_intents/{id}/cancel", "post"],
  "assets.upload": ["/assets", "post"],
  "payoutIntents.create": ["/payout_intents", "post"],
  "payoutIntents.retrieve": ["/payout_intents/{id}", "get"],
  "payoutIntents.list": ["/payout_intents", "get"],
  "payoutIntents.cancel": ["/payout_intents/{id}/cancel", "post"],
  "refunds.create": ["/refunds", "post"],
  "refunds.retrieve": ["/refunds/{id}", "get"],
  "refunds.list": ["/refunds", "get"],
  "topupIntents.create": ["/topup_intents", "post"],
  "topupIntents.retrieve": ["/topup_intents/{id}", "get"],
  "topupIntents.list": ["/topup_intents", "get"],
  "topupIntents.receipt": ["/topup_intents/{id}/receipt", "post"],
  "webhookEndpoints.create": ["/webhook_endpoints", "post"],
  "webhookEndpoints.list": ["/webhook_endpoints", "get"],
  "webhookEndpoints.retrieve": ["/webhook_endpoints/{id}", "get"],
  "webhookEndpoints.delete": ["/webhook_endpoints/{id}", "delete"],
  "webhookEndpoints.attempts": ["/webhook_endpoints/{id}/attempts", "get"],
  "webhookEndpoints.resend": ["/webhook_endpoints/{id}/resend", "post"],
  "webhookEndpoints.rotateSecret": ["/webhook_endpoints/{id}/rotate_secret", "post"],
  "webhookEndpoints.enable": ["/webhook_endpoints/{id}/enable", "post"],
  "events.list": ["/events", "get"],
  "events.retrieve": ["/events/{id}", "get"],
  "balance.retrieve": ["/balance", "get"],
  "balanceTransactions.retrieve": ["/balance_transactions/{id}", "get"],
  "balanceTransactions.list": ["/balance_transactions", "get"],
  "paymentMethods.options": ["/payment_methods/options", "get"],
  "webhookEventTypes.catalogue": ["/webhook_event_types", "get"]
}

/** 4.3 the queries every list route refuses, each 400 validation_failed at the parameter named. */
export const listQueryRefusals = [
  ["?limit=0", "limit"],
  ["?limit=101", "limit"],
  ["?cursor=%21%21", "cursor"],
  ["?colour=red", "colour"],
  ["?created_after=2026-02-30T00:00:00Z", "created_after"],
  ["?created_before=2026-11-22T08:15:30", "created_before"]
] as const

/** The handlers, the recorded answers and the inputs every route group of the error-code matrix uses. */
export interface Matrix {
  readonly h: ReturnType<typeof app>
  /** Storage failing: 500. */
  readonly h500: ReturnType<typeof app>
  /** Storage unreachable: 503. */
  readonly hStoreDown: ReturnType<typeof app>
  /** The key directory failing: 500. */
  readonly hDirectoryDown: ReturnType<typeof app>
  /** The key directory unreachable: 503. */
  readonly h503: ReturnType<typeof app>
  /** Asserts a success and records its status for the operation. */
  readonly ok: (op: Op, res: Promise<Reply>, status: number) => Promise<Reply>
  /** Asserts a D1 error and records its status and code for the operation. */
  readonly err: (op: Op, res: Promise<Reply>, status: number, code: string, param?: string) => Promise<ReturnType<typeof assertError>>
  /**
   * D1 an authenticated read: no key and a wrong key are 401, a failing store 500, an unreachable
   * key directory 503, each recorded for the operation.
   */
  readonly guardedRead: (op: Op, read: (options: { readonly key?: Key }, handler?: ReturnType<typeof app>) => Promise<Reply>) => Promise<void>
  /** 4.3 a list refuses the queries every list refuses and its own, each 400 validation_failed at its parameter. */
  readonly refusesQueries: (op: Op, list: (query: string) => Promise<Reply>, own: ReadonlyArray<readonly [string, string]>) => Promise<void>
  readonly wrongSecret: Key
  /** D1 a write sent a body over 1 MiB (declared in Content-Length) is 413 validation_failed at body, recorded for the operation. */
  readonly refusesOversized: (op: Op, write: (options: CallOptions) => Promise<Reply>) => Promise<void>
  /** Runtimes a route group made, disposed after the file. */
  readonly runtimes: Array<{ readonly dispose: () => Promise<void> }>
}

export const bigBody = JSON.stringify({ ...promptpay, metadata: { blob: "x".repeat(1024 * 1024) } })
