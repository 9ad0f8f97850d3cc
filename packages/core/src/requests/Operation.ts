/**
 * A POST operation run under its claims (4.9, D5): reserve the `Idempotency-Key` and the
 * `merchant_reference` together, decide, then commit the state change with the final
 * response in one atomic write. Every resource's create, and every later POST that changes
 * a resource, runs through `run`; the resource supplies only its decision.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Either, Exit } from "effect"
import { Storage } from "../storage/Storage.js"
import type * as ApiResponse from "./ApiResponse.js"
import type { Options } from "./internal/operationSteps.js"
import * as Steps from "./internal/operationSteps.js"

// The models and the release retry are defined beside the steps that use them (no import circle).
export type { Decision, Options, RequestContext } from "./internal/operationSteps.js"
export { ReleaseRetry } from "./internal/operationSteps.js"

/**
 * Run an operation to its final answer. Always answers with a rendered response: errors
 * are rendered in the D1 shape, and stored or released per D5. Runs uninterruptibly once
 * begun (its claims must be settled); a provider call inside `decide` may opt back in to
 * interruption so its timeout can cut it off. Each step is a function of the run's context
 * (`internal/operationSteps.ts`).
 *
 * @since 0.1.0
 */
export const run = <R>(options: Options<R>): Effect.Effect<ApiResponse.ApiResponse, never, Storage | R> =>
  Effect.uninterruptible(Effect.gen(function*() {
    const context = Steps.runOf(yield* Storage, options, yield* Clock.currentTimeMillis)
    const outcome = yield* Steps.begin(context)
    if (Either.isLeft(outcome)) return yield* Steps.beginFailed(context, outcome.left)
    const begun = outcome.right
    const answered = Steps.answerOfBegin(context.requestId, begun)
    if (answered !== undefined) return answered
    // From here the key (if any) is claimed: every answer settles it, and a failure releases it.
    const finished = yield* Effect.exit(begun._tag === "ReferenceTaken" ? Steps.referenceTaken(context, begun) : Steps.decided(context))
    return Exit.isSuccess(finished) ? finished.value : yield* Steps.recover(context, begun, finished.cause)
  }))
