/**
 * The in-memory storage adapter. Every operation runs synchronously inside one
 * `Effect.sync`, so on Node's single thread each is atomic with respect to every other
 * fiber: correct under concurrency without locks. Generic over tables: a new resource
 * needs nothing here.
 */
import { Effect, Option, Stream } from "effect"
import type { StreamEmit } from "effect"
import { claimGraceMillis } from "../Idempotency.js"
import type {
  BeginOutcome,
  BeginRequest,
  HeldKey,
  HeldReference,
  IdempotencyKeyId,
  ListQuery,
  PurgeResult,
  ReferenceId,
  Scope,
  StoredResponse,
  Write
} from "../Storage.js"
import type { StorageError } from "../StorageError.js"
import { ClaimLost, StaleVersion, UniqueViolation } from "../StorageError.js"
import type { StoredRecord, Table } from "../Table.js"
import { compareNewestFirst } from "../Table.js"
import * as Task from "../Task.js"

interface KeyRow {
  fingerprint: string
  expiresAt: number
  lockedUntil: number
  response: StoredResponse | null
}

interface ReferenceRow {
  fingerprint: string
  resourceId: string
  lockedUntil: number
  committed: boolean
}

type Position = { readonly createdAt: number; readonly id: string }

/** First index whose row is not older than `probe`, in rows kept oldest first (the reverse of list order, so inserts append). */
const lowerBound = (rows: ReadonlyArray<Position>, probe: Position) => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareNewestFirst(probe, rows[mid]!) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

const sep = "\u0000"
const keyOf = (k: IdempotencyKeyId) => `${k.apiKeyId}${sep}${k.key}`
const refOf = (r: ReferenceId) => `${r.merchantId}${sep}${r.environment}${sep}${r.resourceType}${sep}${r.reference}`
const scopeOf = (r: Scope) => `${r.merchantId}${sep}${r.environment}`

/** One table's rows: by id, and per scope oldest first, with its unique constraints' values. */
class Rows {
  readonly byId = new Map<string, StoredRecord>()
  readonly byScope = new Map<string, Array<StoredRecord>>()
  readonly taken = new Set<string>()
  constructor(readonly table: Table<any>) {}

  /** The values `record` holds under each unique constraint (none when a field is null). */
  uniqueValues(record: StoredRecord): ReadonlyArray<string> {
    const out: Array<string> = []
    for (const u of this.table.unique) {
      const values = u.fields.map((f) => (record as unknown as Record<string, unknown>)[f])
      if (values.every((v) => v !== null && v !== undefined)) out.push([u.name, scopeOf(record), ...values.map(String)].join(sep))
    }
    return out
  }

  place(record: StoredRecord, replace: boolean) {
    let rows = this.byScope.get(scopeOf(record))
    if (rows === undefined) this.byScope.set(scopeOf(record), rows = [])
    const at = lowerBound(rows, record)
    if (replace && rows[at]?.id === record.id) rows[at] = record
    else rows.splice(at, 0, record)
  }
}

/** A fresh, empty in-memory store: the service of `Storage.layerMemory`. */
export const make = () => {
  const tables = new Map<string, Rows>()
  const rowsOf = (table: Table<any>) => {
    let rows = tables.get(table.name)
    if (rows === undefined) tables.set(table.name, rows = new Rows(table))
    return rows
  }
  const keys = new Map<string, KeyRow>()
  const refs = new Map<string, ReferenceRow>()
  const listeners = new Set<StreamEmit.Emit<never, never, void, void>>()

  // Pending tasks by (when claimable, id): a claim takes from the front, `nextDue` reads it, and
  // neither walks the tasks that are done or far in the future.
  const queue: Array<{ readonly at: number; readonly id: string }> = []
  /** When a pending task may next be claimed: its due time, or its lease's end if later. */
  const claimableAt = (t: Task.TaskRecord) => Math.max(t.dueAt, t.leaseUntil ?? 0)
  const queueIndex = (at: number, id: string) => {
    let lo = 0
    let hi = queue.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const e = queue[mid]!
      if (e.at < at || (e.at === at && e.id < id)) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const enqueue = (t: Task.TaskRecord) => {
    if (t.status === "pending") queue.splice(queueIndex(claimableAt(t), t.id), 0, { at: claimableAt(t), id: t.id })
  }
  const unqueue = (t: Task.TaskRecord) => {
    const i = queueIndex(claimableAt(t), t.id)
    if (queue[i]?.id === t.id) queue.splice(i, 1)
  }

  const begin = (req: BeginRequest): BeginOutcome => {
    const { idempotency, now, reference } = req
    if (idempotency !== undefined) {
      const row = keys.get(keyOf(idempotency))
      if (row !== undefined && row.expiresAt > now) {
        if (row.fingerprint !== idempotency.fingerprint) return { _tag: "KeyConflict" }
        if (row.response !== null) return { _tag: "Replay", response: row.response }
        if (row.lockedUntil > now) return { _tag: "KeyInFlight" }
        // An in-flight claim whose holder died: the retry takes it over.
      }
    }
    let taken: BeginOutcome | undefined
    if (reference !== undefined) {
      const row = refs.get(refOf(reference))
      if (row !== undefined && (row.committed || row.lockedUntil > now)) {
        taken = {
          _tag: "ReferenceTaken",
          resourceId: row.resourceId,
          sameFingerprint: row.fingerprint === reference.fingerprint,
          inFlight: !row.committed
        }
      } else {
        refs.set(refOf(reference), {
          fingerprint: reference.fingerprint,
          resourceId: reference.resourceId,
          lockedUntil: reference.lockedUntil,
          committed: false
        })
      }
    }
    if (idempotency !== undefined) {
      keys.set(keyOf(idempotency), {
        fingerprint: idempotency.fingerprint,
        expiresAt: idempotency.expiresAt,
        lockedUntil: idempotency.lockedUntil,
        response: null
      })
    }
    return taken ?? { _tag: "Proceed" }
  }

  /** Whether the key is still held, unanswered, by the claim that set `lockedUntil`. */
  const holds = (k: HeldKey) => {
    const row = keys.get(keyOf(k))
    return row !== undefined && row.response === null && row.lockedUntil === k.lockedUntil
  }
  const holdsReference = (r: HeldReference) => refs.get(refOf(r))?.resourceId === r.resourceId

  /** The first precondition of the list that does not hold, checked against the store as it would be after the writes before it. */
  const check = (writes: ReadonlyArray<Write>): StorageError | undefined => {
    const inserted = new Set<string>()
    const claimed = new Set<string>()
    for (const w of writes) {
      switch (w._tag) {
        case "Insert": {
          const rows = rowsOf(w.table)
          const id = `${w.table.name}${sep}${w.record.id}`
          if (rows.byId.has(w.record.id) || inserted.has(id)) {
            return new UniqueViolation({ message: `duplicate ${w.table.name} id ${w.record.id}` })
          }
          inserted.add(id)
          for (const value of rows.uniqueValues(w.record)) {
            if (rows.taken.has(value) || claimed.has(value)) {
              return new UniqueViolation({ message: `duplicate ${w.table.name} ${value.split(sep)[0]}` })
            }
            claimed.add(value)
          }
          break
        }
        case "Update": {
          const current = rowsOf(w.table).byId.get(w.record.id)
          if (current === undefined || current.version !== w.expectedVersion) {
            return new StaleVersion({ message: `stale update of ${w.record.id}` })
          }
          break
        }
        case "CompleteReference":
          // A resource that no longer holds its claim (it lapsed and another create took it over)
          // must not be written, or the reference would name the wrong resource.
          if (!holdsReference(w.reference)) {
            return new UniqueViolation({ message: "merchant_reference is no longer held by this resource" })
          }
          break
        case "CompleteIdempotency":
          if (!holds(w.key)) return new ClaimLost({ message: "the idempotency key was taken over by a retry" })
          break
        case "ReleaseReference":
        case "ReleaseIdempotency":
          break
      }
    }
    return undefined
  }

  const apply = (w: Write) => {
    switch (w._tag) {
      case "Insert": {
        const rows = rowsOf(w.table)
        for (const value of rows.uniqueValues(w.record)) rows.taken.add(value)
        rows.byId.set(w.record.id, w.record)
        rows.place(w.record, false)
        if (w.table.name === Task.table.name) {
          const task = w.record as Task.TaskRecord
          enqueue(task)
          // Wake idle workers for work due now; a timer for later wakes nobody.
          if (task.dueAt <= task.createdAt) for (const emit of listeners) void emit.single(undefined)
        }
        return
      }
      case "Update": {
        const rows = rowsOf(w.table)
        const before = rows.byId.get(w.record.id)!
        for (const value of rows.uniqueValues(before)) rows.taken.delete(value)
        for (const value of rows.uniqueValues(w.record)) rows.taken.add(value)
        rows.byId.set(w.record.id, w.record)
        rows.place(w.record, true)
        if (w.table.name === Task.table.name) {
          unqueue(before as Task.TaskRecord)
          enqueue(w.record as Task.TaskRecord)
        }
        return
      }
      case "CompleteReference": {
        const row = refs.get(refOf(w.reference))
        if (row !== undefined) row.committed = true
        return
      }
      case "ReleaseReference": {
        const row = refs.get(refOf(w.reference))
        if (row !== undefined && !row.committed && row.resourceId === w.reference.resourceId) refs.delete(refOf(w.reference))
        return
      }
      case "CompleteIdempotency": {
        const row = keys.get(keyOf(w.key))
        if (row !== undefined) row.response = w.response
        return
      }
      case "ReleaseIdempotency":
        if (holds(w.key)) keys.delete(keyOf(w.key))
        return
    }
  }

  const list = <A extends StoredRecord>(table: Table<A>, q: ListQuery<A>): ReadonlyArray<A> => {
    const rows = (rowsOf(table).byScope.get(scopeOf(q)) ?? []) as ReadonlyArray<StoredRecord> as ReadonlyArray<A>
    const filters = Object.entries(q.where ?? {}).flatMap(([field, value]) =>
      value === undefined ? [] : [{ field, values: new Set(typeof value === "string" ? [value] : value as ReadonlyArray<string>) }]
    )
    // Start just below the cursor or created_before, whichever is lower; walk to older rows.
    let start = rows.length
    if (q.after !== undefined) start = Math.min(start, lowerBound(rows, q.after))
    if (q.createdBefore !== undefined) start = Math.min(start, lowerBound(rows, { createdAt: q.createdBefore, id: "" }))
    const out: Array<A> = []
    for (let i = start - 1; i >= 0 && out.length < q.limit; i--) {
      const r = rows[i]!
      if (q.createdAfter !== undefined && r.createdAt < q.createdAfter) break
      if (filters.every((f) => f.values.has((r as unknown as Record<string, string>)[f.field]!))) out.push(r)
    }
    return out
  }

  const tasks = {
    claim: (req: Task.ClaimRequest) =>
      Effect.sync(() => {
        const rows = rowsOf(Task.table)
        const out: Array<Task.TaskRecord> = []
        // The queue is in claim order: take from its front while claimable.
        while (out.length < req.limit && queue[0] !== undefined && queue[0].at <= req.now) {
          const t = rows.byId.get(queue[0].id) as Task.TaskRecord
          const claimed: Task.TaskRecord = {
            ...t,
            leaseOwner: req.owner,
            leaseUntil: req.now + req.leaseMillis,
            attempts: t.attempts + 1,
            updatedAt: req.now,
            version: t.version + 1
          }
          rows.byId.set(t.id, claimed)
          rows.place(claimed, true)
          unqueue(t)
          enqueue(claimed)
          out.push(claimed)
        }
        return out
      }),
    nextDue: Effect.sync(() => queue[0]?.at),
    wakeups: Stream.async<void>((emit) => {
      listeners.add(emit)
      return Effect.sync(() => void listeners.delete(emit))
    })
  }

  return {
    tasks,
    begin: (req: BeginRequest) => Effect.sync(() => begin(req)),
    commit: (writes: ReadonlyArray<Write>): Effect.Effect<void, StorageError> =>
      Effect.suspend(() => {
        // Check everything first, then apply: all or nothing.
        const failed = check(writes)
        if (failed !== undefined) return Effect.fail(failed)
        writes.forEach(apply)
        return Effect.void
      }),
    get: <A extends StoredRecord>(table: Table<A>, scope: Scope, id: string) =>
      Effect.sync(() => {
        const row = rowsOf(table).byId.get(id) as A | undefined
        // Another merchant's or environment's record is indistinguishable from none (4.2).
        return row !== undefined && row.merchantId === scope.merchantId && row.environment === scope.environment
          ? Option.some(row)
          : Option.none()
      }),
    find: <A extends StoredRecord>(table: Table<A>, id: string) =>
      Effect.sync(() => Option.fromNullable(rowsOf(table).byId.get(id) as A | undefined)),
    list: <A extends StoredRecord>(table: Table<A>, query: ListQuery<A>) => Effect.sync(() => list(table, query)),
    purgeExpired: (now: number) =>
      Effect.sync((): PurgeResult => {
        let idempotencyKeys = 0
        let referenceClaims = 0
        for (const [k, row] of keys) {
          if (row.expiresAt <= now) {
            keys.delete(k)
            idempotencyKeys++
          }
        }
        for (const [k, row] of refs) {
          if (!row.committed && row.lockedUntil + claimGraceMillis <= now) {
            refs.delete(k)
            referenceClaims++
          }
        }
        return { idempotencyKeys, referenceClaims }
      })
  }
}
