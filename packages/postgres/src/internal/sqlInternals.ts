/**
 * What the direct statement path reads of `@effect/sql` beyond its declared types, in this one place
 * (docs/upstream.md, "Statements run in one callback"). Internals.test.ts checks each on the pinned
 * `@effect/sql`, so an upgrade that moves one fails a test instead of changing a span or a transaction.
 */
import { TransactionConnection } from "@effect/sql/SqlClient"
import { currentTransformer, type Statement } from "@effect/sql/Statement"
import type { Fiber } from "effect"
import { Option } from "effect"

/**
 * Whether `fiber` runs inside a transaction of `@effect/sql` (its connection is the transaction's)
 * or under a statement transformer (`Statement.withTransformer`): there a statement must run
 * through `@effect/sql` itself.
 *
 * @internal
 */
export const needsSqlClient = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.currentContext.unsafeMap.has(TransactionConnection.key) || Option.isSome(fiber.getFiberRef(currentTransformer))

/**
 * The client's span attributes (`db.system.name`, `db.namespace`, `server.address`, `server.port`
 * and the host's own `spanAttributes`), which `@effect/sql` keeps on each statement it builds but
 * does not declare.
 *
 * @internal
 */
export const spanAttributesOf = (statement: Statement<unknown>): ReadonlyArray<readonly [string, unknown]> =>
  (statement as unknown as { readonly spanAttributes?: ReadonlyArray<readonly [string, unknown]> }).spanAttributes ?? []
