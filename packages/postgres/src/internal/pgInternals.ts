/**
 * The members of `pg` that `@types/pg` does not declare, read in this one place (docs/upstream.md,
 * "Cancel without a connection of the pool"). Internals.test.ts checks on the pinned `pg` that each
 * is still there with its type, so an upgrade that drops one fails a test instead of a cancel.
 */
import type Pg from "pg"

/** What a `pg` connection keeps of its server and of the key the server gave it at its start (BackendKeyData). */
export interface Backend {
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly processID?: number | null | undefined
  readonly secretKey?: number | null | undefined
}

/**
 * `client` seen as its `Backend`: `host` and `port` are declared on `Client` only (not on a pool's
 * `PoolClient`), `processID` and `secretKey` nowhere. The members are read when used, never copied:
 * a connection learns its key after it is made.
 *
 * @internal
 */
export const backendOf = (client: Pg.ClientBase): Backend => client as unknown as Backend
