/**
 * The order of a fair claim (`Task.Tasks.claim`): round the merchants, then round each merchant's
 * lanes, each lane earliest due first; and how far a claim walks the ring of ids to find them.
 * Shared by the stores that order candidates in code (memory, MongoDB); PostgreSQL ranks the same
 * way in SQL.
 *
 * @since 0.1.0
 */

import { prefixes, randomBase62 } from "../resources/Ids.js"

/**
 * Where a ring of ids starts for `ring`: the ids above it in order, then those at or below it.
 *
 * @since 0.1.0
 */
export const fromRing = (sorted: ReadonlyArray<string>, ring: string | undefined): Array<string> => {
  if (ring === undefined || ring === "") return [...sorted]
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= ring) lo = mid + 1
    else hi = mid
  }
  return [...sorted.slice(lo), ...sorted.slice(0, lo)]
}

/**
 * The ids of a ring from `ring`, as `fromRing` orders them, without copying `sorted`: a claim that
 * stops early reads only the ids it steps over.
 *
 * @since 0.1.0
 */
export function* ringOrder(sorted: ReadonlyArray<string>, ring: string | undefined): Generator<string> {
  let lo = 0
  let hi = sorted.length
  while (ring !== undefined && lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= ring) lo = mid + 1
    else hi = mid
  }
  for (let i = 0; i < sorted.length; i++) yield sorted[(lo + i) % sorted.length]!
}

/**
 * The deliveries one merchant may have in flight at once (`Task.ClaimRequest.perMerchant`), by
 * default, for a process with `deliverySlots` delivery slots: half of them, so that a merchant whose
 * endpoints all hang holds half the pool at most, and every other merchant, however many of them
 * also hang, still finds the other half (one slot kept back would be held by the next bad merchant).
 *
 * @since 0.1.0
 */
export const merchantShare = (deliverySlots: number): number => Math.max(1, Math.floor(deliverySlots / 2))

/**
 * The lease owner of a delivery held back while its endpoint backs off (`Task.Outcome` `Defer` with
 * `hold`): leased until the back-off ends, so it fills its endpoint's room (`perEndpoint`) and claims
 * pass the endpoint by at an index's cost, rather than claiming and deferring its backlog two at a
 * time over and over; it does not count against its merchant's room (`perMerchant`), which its
 * healthy endpoints keep.
 *
 * @since 0.1.0
 */
export const backoffOwner = "tender:endpoint-backoff"

/**
 * A ring point among endpoints for one claim, drawn at random: endpoint ids are random base62 after
 * their prefix, so every endpoint of a merchant is first as often as any other, with no cursor
 * shared between processes.
 *
 * @since 0.1.0
 */
export const randomEndpoint = (): string => prefixes.webhookEndpoint + randomBase62(6)

/**
 * How many merchants, and how many endpoints of a merchant, a claim steps through from its ring
 * point at most, on either side of it: a store walks ids in order from an index, and a merchant or
 * endpoint with nothing claimable (timers not yet due, an endpoint at its bound) costs a step. The
 * next claim starts elsewhere in the ring, so nobody beyond the steps waits long.
 *
 * @since 0.1.0
 */
export const ringSteps = (limit: number): number => Math.max(64, 4 * limit)

/**
 * The claim's order over candidates a store has read: each merchant's tasks go round its lanes, each lane's in due
 * order; then the merchants go round, in ring order. `merchants` lists, in ring order, each merchant's lanes in
 * ring order, each lane's claimable tasks in due order; `rooms`, if given, how many each merchant may take at most
 * (its `perMerchant` bound less those in flight). Returns at most `limit` tasks.
 *
 * @since 0.1.0
 */
export const roundRobin = <A>(merchants: ReadonlyArray<ReadonlyArray<ReadonlyArray<A>>>, limit: number, rooms?: ReadonlyArray<number>): Array<A> => {
  const perMerchant = merchants.map((lanes, i) => interleave(lanes, Math.min(limit, rooms?.[i] ?? limit)))
  return interleave(perMerchant, limit)
}

/** The first of every list, then the second of every list, ...: at most `limit`. */
const interleave = <A>(lists: ReadonlyArray<ReadonlyArray<A>>, limit: number): Array<A> => {
  const out: Array<A> = []
  for (let round = 0; out.length < limit; round++) {
    let any = false
    for (const list of lists) {
      if (round < list.length) {
        any = true
        out.push(list[round]!)
        if (out.length >= limit) break
      }
    }
    if (!any) break
  }
  return out
}
