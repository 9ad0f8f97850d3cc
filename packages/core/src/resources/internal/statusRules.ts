/**
 * A resource's status rules as one table: for each status, the statuses it may move to; a status
 * with none is terminal. The table is a record over the whole status union, so a new status does
 * not compile until its row is written, and every rule reads the one table.
 */

/** For each status, the statuses a resource in it may move to (none: terminal). */
export type Transitions<S extends string> = { readonly [K in S]: ReadonlyArray<S> }

/** Whether a status is terminal: no transition leaves it. */
export const terminal = <S extends string>(transitions: Transitions<S>) => (status: S): boolean => transitions[status].length === 0

/** Whether a resource in `from` may move to `to`. */
export const allowed = <S extends string>(transitions: Transitions<S>) => (from: S, to: S): boolean => transitions[from].includes(to)
