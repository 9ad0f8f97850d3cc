/**
 * The in-memory storage adapter (`MemoryStorage`). Every operation runs synchronously inside one
 * `Effect.sync`, so on Node's single thread each is atomic with respect to every other
 * fiber: correct under concurrency without locks. Generic over tables: a new resource
 * needs nothing here. A table's rows are `memoryRows.ts`, the task queue `memoryTasks.ts`.
 * Each operation is a step over the store's state (`Store`) passed explicitly; `make` wires them
 * into the port.
 */
import { Effect, Option } from "effect"
import * as BalanceTransaction from "../../balances/BalanceTransaction.js"
import { claimGraceMillis } from "../../requests/Idempotency.js"
import type {
  BalanceKey,
  BalanceQuery,
  BalanceTotal,
  BeginOutcome,
  BeginRequest,
  Cutoff,
  HeldKey,
  HeldReference,
  IdempotencyKeyId,
  ListQuery,
  PurgeOptions,
  PurgeResult,
  ReferenceId,
  Scope,
  StoredResponse,
  WalkQuery,
  Write
} from "../Storage.js"
import type { StorageError } from "../StorageError.js"
import { ClaimLost, StaleVersion, UniqueViolation } from "../StorageError.js"
import type { BaseRecord, StoredRecord, Table } from "../Table.js"
import { isDue, retentionOf } from "../Table.js"
import * as Task from "../Task.js"
import { list, Rows, scopeKey, sep, walk } from "./memoryRows.js"
import * as MemoryTasks from "./memoryTasks.js"

export interface KeyRow {
  fingerprint: string
  expiresAt: number
  lockedUntil: number
  response: StoredResponse | null
}

export interface ReferenceRow {
  fingerprint: string
  resourceId: string
  lockedUntil: number
  committed: boolean
}

const inBalance = (r: BalanceTransaction.BalanceTransactionRecord, b: BalanceKey) =>
  r.merchantId === b.merchantId && r.environment === b.environment && r.currency === b.currency

const keyOf = (k: IdempotencyKeyId) => `${k.apiKeyId}${sep}${k.key}`
const refOf = (r: ReferenceId) => `${r.merchantId}${sep}${r.environment}${sep}${r.resourceType}${sep}${r.reference}`

/** What one in-memory store holds: every step below takes it explicitly, so a test can reach each. */
export interface Store {
  readonly tables: Map<string, Rows>
  readonly keys: Map<string, KeyRow>
  readonly refs: Map<string, ReferenceRow>
  readonly taskQueue: ReturnType<typeof MemoryTasks.make>
}

/** The rows of `table`, made empty on first use. */
export const rowsOf = (store: Pick<Store, "tables">, table: Table<any>): Rows => {
  let rows = store.tables.get(table.name)
  if (rows === undefined) store.tables.set(table.name, rows = new Rows(table))
  return rows
}

/** A fresh, empty store. */
export const emptyStore = (): Store => {
  const tables = new Map<string, Rows>()
  return { tables, keys: new Map(), refs: new Map(), taskQueue: MemoryTasks.make(rowsOf({ tables }, Task.table)) }
}

/** Reserve the idempotency key and the merchant_reference together (`Storage.begin`). */
export const begin = (store: Store, req: BeginRequest): BeginOutcome => {
  const { idempotency, now, reference } = req
  if (idempotency !== undefined) {
    const row = store.keys.get(keyOf(idempotency))
    if (row !== undefined && row.expiresAt > now) {
      if (row.fingerprint !== idempotency.fingerprint) return { _tag: "KeyConflict" }
      if (row.response !== null) return { _tag: "Replay", response: row.response }
      if (row.lockedUntil > now) return { _tag: "KeyInFlight" }
      // An in-flight claim whose holder died: the retry takes it over.
    }
  }
  let taken: BeginOutcome | undefined
  if (reference !== undefined) {
    const row = store.refs.get(refOf(reference))
    if (row !== undefined && (row.committed || row.lockedUntil > now)) {
      taken = {
        _tag: "ReferenceTaken",
        resourceId: row.resourceId,
        sameFingerprint: row.fingerprint === reference.fingerprint,
        inFlight: !row.committed
      }
    } else {
      store.refs.set(refOf(reference), {
        fingerprint: reference.fingerprint,
        resourceId: reference.resourceId,
        lockedUntil: reference.lockedUntil,
        committed: false
      })
    }
  }
  if (idempotency !== undefined) {
    store.keys.set(keyOf(idempotency), {
      fingerprint: idempotency.fingerprint,
      expiresAt: idempotency.expiresAt,
      lockedUntil: idempotency.lockedUntil,
      response: null
    })
  }
  return taken ?? { _tag: "Proceed" }
}

/** Whether the key is still held, unanswered, by the claim that set `lockedUntil`. */
export const holds = (store: Store, k: HeldKey) => {
  const row = store.keys.get(keyOf(k))
  return row !== undefined && row.response === null && row.lockedUntil === k.lockedUntil
}
/** Whether the reference is held for `r.resourceId`. */
export const holdsReference = (store: Store, r: HeldReference) => store.refs.get(refOf(r))?.resourceId === r.resourceId

/** The first precondition of the list that does not hold, checked against the store as it would be after the writes before it. */
export const check = (store: Store, writes: ReadonlyArray<Write>): StorageError | undefined => {
  const inserted = new Set<string>()
  const claimed = new Set<string>()
  const deleted = new Set<string>()
  for (const w of writes) {
    switch (w._tag) {
      case "Insert": {
        const rows = rowsOf(store, w.table)
        const id = `${w.table.name}${sep}${w.record.id}`
        // A record a Delete earlier in the list removes frees its id and unique values for this insert.
        const held = (holder: string | undefined) => holder !== undefined && !deleted.has(`${w.table.name}${sep}${holder}`)
        if (held(rows.byId.has(w.record.id) ? w.record.id : undefined) || inserted.has(id)) {
          return new UniqueViolation({ message: `duplicate ${w.table.name} id ${w.record.id}` })
        }
        inserted.add(id)
        for (const value of rows.uniqueValues(w.record)) {
          if (held(rows.taken.get(value)) || claimed.has(value)) {
            return new UniqueViolation({ message: `duplicate ${w.table.name} ${value.split(sep)[0]}` })
          }
          claimed.add(value)
        }
        break
      }
      case "Update": {
        const current = rowsOf(store, w.table).byId.get(w.record.id)
        if (current === undefined || current.version !== w.expectedVersion) {
          return new StaleVersion({ message: `stale update of ${w.record.id}` })
        }
        break
      }
      case "Delete": {
        const current = rowsOf(store, w.table).byId.get(w.id)
        const id = `${w.table.name}${sep}${w.id}`
        if (current === undefined || current.version !== w.expectedVersion || deleted.has(id)) {
          return new StaleVersion({ message: `stale delete of ${w.id}` })
        }
        deleted.add(id)
        break
      }
      case "CompleteReference":
        // A resource that no longer holds its claim (it lapsed and another create took it over)
        // must not be written, or the reference would name the wrong resource.
        if (!holdsReference(store, w.reference)) {
          return new UniqueViolation({ message: "merchant_reference is no longer held by this resource" })
        }
        break
      case "CompleteIdempotency":
        if (!holds(store, w.key)) return new ClaimLost({ message: "the idempotency key was taken over by a retry" })
        break
      case "RequireAvailable": {
        // What the balance would hold after the commit: its available transactions and every
        // debit, whenever it is dated (as the PostgreSQL adapter counts them).
        const counts = (r: BalanceTransaction.BalanceTransactionRecord) =>
          inBalance(r, w.balance) && (BalanceTransaction.isAvailable(r, w.now) || r.net.startsWith("-"))
        let sum = 0n
        for (const r of rowsOf(store, BalanceTransaction.table).byScope.get(scopeKey(w.balance)) ?? []) {
          if (counts(r as unknown as BalanceTransaction.BalanceTransactionRecord)) {
            sum += BigInt((r as unknown as BalanceTransaction.BalanceTransactionRecord).net)
          }
        }
        for (const x of writes) {
          if (x._tag === "Insert" && x.table.name === BalanceTransaction.table.name && counts(x.record as BalanceTransaction.BalanceTransactionRecord)) {
            sum += BigInt((x.record as BalanceTransaction.BalanceTransactionRecord).net)
          }
        }
        if (sum < 0n) return new StaleVersion({ message: "the available balance does not cover this payout" })
        break
      }
      case "ReleaseReference":
      case "ReleaseIdempotency":
        break
    }
  }
  return undefined
}

/** The balances of a merchant (or every merchant) of an environment, summed from its transactions (D12). */
export const totals = (store: Store, q: BalanceQuery): ReadonlyArray<BalanceTotal> => {
  const sums = new Map<string, { available: bigint; pending: bigint; fees: bigint }>()
  const rows = rowsOf(store, BalanceTransaction.table)
  const scoped = q.merchantId === undefined
    ? [...rows.byId.values()].filter((r) => r.environment === q.environment)
    : rows.byScope.get(scopeKey({ merchantId: q.merchantId, environment: q.environment })) ?? []
  for (const row of scoped as ReadonlyArray<unknown> as ReadonlyArray<BalanceTransaction.BalanceTransactionRecord>) {
    let sum = sums.get(row.currency)
    if (sum === undefined) sums.set(row.currency, sum = { available: 0n, pending: 0n, fees: 0n })
    if (BalanceTransaction.isAvailable(row, q.now) || row.net.startsWith("-")) sum.available += BigInt(row.net)
    else sum.pending += BigInt(row.net)
    sum.fees += BigInt(row.fee)
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([currency, s]) => ({
    currency,
    available: String(s.available),
    pending: String(s.pending),
    fees: String(s.fees)
  }))
}

/** Apply one write whose precondition `check` found holding. */
export const apply = (store: Store, w: Write) => {
  switch (w._tag) {
    case "Insert": {
      const rows = rowsOf(store, w.table)
      for (const value of rows.uniqueValues(w.record)) rows.taken.set(value, w.record.id)
      rows.byId.set(w.record.id, w.record as StoredRecord)
      rows.place(w.record as StoredRecord, false)
      if (w.table.name === Task.table.name) store.taskQueue.inserted(w.record as Task.TaskRecord)
      return
    }
    case "Update": {
      const rows = rowsOf(store, w.table)
      const before = rows.byId.get(w.record.id)!
      for (const value of rows.uniqueValues(before)) rows.taken.delete(value)
      for (const value of rows.uniqueValues(w.record)) rows.taken.set(value, w.record.id)
      rows.byId.set(w.record.id, w.record as StoredRecord)
      rows.place(w.record as StoredRecord, true)
      if (w.table.name === Task.table.name) store.taskQueue.updated(before as Task.TaskRecord, w.record as Task.TaskRecord)
      return
    }
    case "Delete": {
      const rows = rowsOf(store, w.table)
      rows.remove(rows.byId.get(w.id)!)
      return
    }
    case "CompleteReference": {
      const row = store.refs.get(refOf(w.reference))
      if (row !== undefined) row.committed = true
      return
    }
    case "ReleaseReference": {
      const row = store.refs.get(refOf(w.reference))
      if (row !== undefined && !row.committed && row.resourceId === w.reference.resourceId) store.refs.delete(refOf(w.reference))
      return
    }
    case "CompleteIdempotency": {
      const row = store.keys.get(keyOf(w.key))
      if (row !== undefined) row.response = w.response
      return
    }
    case "ReleaseIdempotency":
      if (holds(store, w.key)) store.keys.delete(keyOf(w.key))
      return
    case "RequireAvailable":
      return
  }
}

/** Check every write, then apply them all (`Storage.commit`): the error of the first that does not hold, and nothing written. */
export const commit = (store: Store, writes: ReadonlyArray<Write>): StorageError | undefined => {
  const failed = check(store, writes)
  if (failed !== undefined) return failed
  for (const w of writes) apply(store, w)
  if (writes.some(Task.wakesWorkers)) store.taskQueue.wake()
  return undefined
}

/** The record `id` of `table` in `scope`: another merchant's or environment's is indistinguishable from none (4.2). */
export const get = <A extends StoredRecord>(store: Store, table: Table<A>, scope: Scope, id: string): Option.Option<A> => {
  const row = rowsOf(store, table).byId.get(id) as A | undefined
  return row !== undefined && row.merchantId === scope.merchantId && row.environment === scope.environment ? Option.some(row) : Option.none()
}

/** Delete what no request can use any more (`Storage.purgeExpired`), at most `options.limit` of each kind. */
export const purge = (store: Store, now: number, options: PurgeOptions = {}): PurgeResult => {
  const limit = options.limit ?? Infinity
  /** Delete the entries of `map` that are `due`, at most `limit` of them. */
  const purgeMap = <V>(map: Map<string, V>, due: (v: V) => boolean) => {
    let n = 0
    for (const [k, v] of map) {
      if (n >= limit) break
      if (due(v)) {
        map.delete(k)
        n++
      }
    }
    return n
  }
  /** Delete the records of `cut.table` due under its retention, at most `limit` of them. */
  const purgeRows = ({ before, table }: Cutoff) => {
    const retention = retentionOf(table)
    const rows = rowsOf(store, table)
    const doomed: Array<StoredRecord> = []
    for (const r of rows.byId.values()) {
      if (doomed.length >= limit) break
      if (isDue(retention, r, before)) doomed.push(r)
    }
    doomed.forEach((r) => rows.remove(r))
    return doomed.length
  }
  return {
    idempotencyKeys: purgeMap(store.keys, (row) => row.expiresAt <= now),
    referenceClaims: purgeMap(store.refs, (row) => !row.committed && row.lockedUntil + claimGraceMillis <= now),
    records: Object.fromEntries((options.cutoffs ?? []).map((cut) => [cut.table.name, purgeRows(cut)]))
  }
}

/** A fresh, empty in-memory store: the service of `MemoryStorage.layer`. */
export const make = () => {
  const store = emptyStore()
  return {
    tasks: store.taskQueue.tasks,
    begin: (req: BeginRequest) => Effect.sync(() => begin(store, req)),
    commit: (writes: ReadonlyArray<Write>): Effect.Effect<void, StorageError> =>
      Effect.suspend(() => {
        // Check everything first, then apply: all or nothing.
        const failed = commit(store, writes)
        return failed === undefined ? Effect.void : Effect.fail(failed)
      }),
    get: <A extends StoredRecord>(table: Table<A>, scope: Scope, id: string) => Effect.sync(() => get(store, table, scope, id)),
    find: <A extends BaseRecord>(table: Table<A>, id: string) => Effect.sync(() => Option.fromNullable(rowsOf(store, table).byId.get(id) as A | undefined)),
    findBy: <A extends BaseRecord>(table: Table<A>, field: string, value: string) =>
      Effect.sync(() => Option.fromNullable(rowsOf(store, table).findBy(field, value) as A | undefined)),
    walk: <A extends BaseRecord>(table: Table<A>, query: WalkQuery<A>) => Effect.sync(() => walk(rowsOf(store, table), query)),
    list: <A extends StoredRecord>(table: Table<A>, query: ListQuery<A>) => Effect.sync(() => list(rowsOf(store, table), query)),
    balances: (query: BalanceQuery) => Effect.sync(() => totals(store, query)),
    purgeExpired: (now: number, options: PurgeOptions = {}) => Effect.sync(() => purge(store, now, options))
  }
}
