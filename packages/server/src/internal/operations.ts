/**
 * The Promise API on the core services: each merchant method is a row of `endpoints.ts`, the
 * core operation the HTTP handler of the same endpoint calls (`Handlers.ts`), with the merchant
 * named by the host instead of found from a key pair. Bodies and queries are decoded with the
 * schemas the HTTP API decodes them with, so every rule (validation, idempotency,
 * merchant_reference, state checks) is the same. The host-only surfaces are `host.ts`.
 */
import type { Authentication, Operation } from "@tender/core"
import { Errors, PayoutIntents } from "@tender/core"
import type { ManagedRuntime } from "effect"
import { Effect } from "effect"
import type * as Api from "../PromiseTypes.js"
import { TenderError } from "../TenderError.js"
import * as Arguments from "./arguments.js"
import { type Methods, table } from "./endpoints.js"
import * as Host from "./host.js"
import type { Input, Row, Services, Shape } from "./rows.js"
import { asQuery, decode, fromResponse, run } from "./run.js"

/** A runtime holding every core service (`createTender` builds it). */
export type Runtime = ManagedRuntime.ManagedRuntime<Services, unknown>

/**
 * The host acting as the merchant (`scope` decoded already). Idempotency keys are held per
 * caller (4.9): the host's calls for one merchant and environment are one caller, apart from
 * every key pair's.
 */
const principalOf = (scope: Api.MerchantScope) =>
  Effect.map(
    Host.findMerchant(scope.merchant),
    (merchant) => ({ merchant, environment: scope.environment, apiKeyId: `host_${scope.environment}_${merchant.id}` }) satisfies Authentication.Principal
  )

/** The body, query or file argument of `shape`, checked for its kind (its fields are the schema's to check). */
const given = (check: ReturnType<typeof Arguments.of>, params: NonNullable<Shape["params"]>, value: unknown) => {
  if (params.name === "file") return check.file(value)
  return params.optional ? check.optionalBody(value, params.name) : check.body(value, params.name)
}

/**
 * The decoded input of a call to `method`: the id first, then the body or query is an object,
 * then the options name a merchant (and a valid key), and only then the body's fields, so a call
 * with one bad argument is refused naming that argument.
 */
const inputOf = (method: string, shape: Shape, args: ReadonlyArray<unknown>, requestId: string) =>
  Effect.gen(function*() {
    const check = Arguments.of(method)
    let at = 0
    const id = shape.id ? yield* check.id(args[at++]) : ""
    const raw = shape.params === undefined ? undefined : yield* given(check, shape.params, args[at++])
    const options: Api.WriteOptions = shape.options === "write" ? yield* check.write(args[at]) : yield* check.scope(args[at])
    const context: Operation.RequestContext = { principal: yield* principalOf(options), requestId, idempotencyKey: options.idempotencyKey }
    const params = shape.params === undefined || shape.params.name === "file"
      ? raw
      : yield* decode(shape.params.schema, shape.params.name === "query" ? asQuery(raw as Record<string, unknown>) : raw)
    // The row's own schema decoded `params` just now: the row's operation takes that type.
    return { context, id, params } as Input<never>
  })

/** The Promise API of one instance. */
export const make = (runtime: Runtime) => {
  /** The method `group.endpoint` of `row`. */
  const method = (name: string, row: Row<ReadonlyArray<unknown>>) => (...args: ReadonlyArray<unknown>): Promise<unknown> => {
    const answer = run(runtime, (requestId) =>
      row.shape.options === "none"
        // A row without options (the catalogue) reads no input.
        ? row.run(undefined as never)
        : Effect.flatMap(inputOf(name, row.shape, args, requestId), row.run))
    return row.shape.rendered ? answer.then((response) => fromResponse(response as Parameters<typeof fromResponse>[0])) : answer
  }

  const merchantApi = Object.fromEntries(
    Object.entries(table).map(([group, rows]) => [
      group,
      Object.fromEntries(Object.entries(rows).map(([endpoint, row]) => [endpoint, method(`${group}.${endpoint}`, row)]))
    ])
  ) as unknown as Methods

  /**
   * Approve a payout awaiting approval (D8): the host's word, not a merchant route. Another
   * status rejects with 409 `payout_not_approvable` (nothing changes).
   */
  const approve = (id: string, options: Api.MerchantScope): Promise<Api.PayoutIntentResource> =>
    run(runtime, (requestId) =>
      Effect.gen(function*() {
        const check = Arguments.of("payoutIntents.approve")
        const valid = yield* check.id(id)
        const principal = yield* principalOf(yield* check.scope(options))
        const outcome = yield* PayoutIntents.approve({ merchantId: principal.merchant.id, environment: principal.environment }, valid)
        if (outcome === "not_found") return yield* new Errors.ResourceNotFound({ param: "id", message: `No payout intent ${JSON.stringify(valid)}.` })
        const payout = yield* PayoutIntents.retrieve(principal, valid)
        if (outcome === "not_awaiting_approval") {
          // D8 names no wire code for this (approval is not a merchant route): the host's own.
          return yield* Effect.fail(
            new TenderError({
              code: "payout_not_approvable",
              status: 409,
              message: `This payout intent is ${payout.status}: only a payout awaiting approval can be approved.`,
              requestId
            })
          )
        }
        return payout
      }))

  return {
    ...merchantApi,
    payoutIntents: { ...merchantApi.payoutIntents, approve },
    ...Host.make(runtime)
  }
}
