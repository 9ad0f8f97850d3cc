/**
 * Public addresses (SSRF, docs/webhooks.md, "URL rules"): whether a URL's host or an address a
 * name resolves to may be reached from the host's network on a merchant's say-so. The ranges
 * are ipaddr.js's maintained list of special-purpose ranges (IANA's registries): any range
 * but `unicast` is refused, an IPv4-mapped IPv6 address is read as the IPv4 address it
 * carries, and an IPv6 address must also lie in 2000::/3, the only block IANA allocates for
 * global unicast (ipaddr.js names unallocated space such as `::7f00:1` `unicast` too).
 * `localhost` and every name under `.localhost` are reserved for loopback; a trailing dot
 * (`localhost.`, the fully qualified spelling) changes nothing.
 *
 * @since 0.1.0
 */
import ipaddr from "ipaddr.js"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"

/** A resolved address, as `dns.lookup` with `all: true` gives them. @since 0.1.0 @category models */
export interface Resolved {
  readonly address: string
  readonly family: number
}

/**
 * Resolves a host name to its addresses. The default is the system resolver
 * (`dns.lookup(name, { all: true })`, what Node's own connections use); a test injects its
 * own.
 *
 * @since 0.1.0 @category models
 */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<Resolved>>

/** The system resolver. @since 0.1.0 */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true })

const globalUnicast = ipaddr.parseCIDR("2000::/3")

/** A host as written in a URL, without brackets and trailing dots, in lower case. */
const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1").replace(/\.+$/, "").toLowerCase()

/**
 * The ipaddr.js range of an IP literal (`unicast` when public), IPv4-mapped IPv6 read as
 * IPv4; `undefined` when `address` is not an IP literal.
 *
 * @since 0.1.0
 */
export const rangeOf = (address: string): string | undefined => {
  const ip = bare(address)
  if (isIP(ip) === 0) return undefined
  const parsed = ipaddr.process(ip)
  const range = parsed.range()
  if (range === "unicast" && parsed.kind() === "ipv6" && !parsed.match(globalUnicast)) return "unallocated"
  return range
}

/** Whether an IP literal is a public address. @since 0.1.0 */
export const isPublic = (address: string): boolean => rangeOf(address) === "unicast"

/**
 * Why a URL's host (a name, an IPv4 literal or a bracketed IPv6 literal) is refused as it is
 * written, or `undefined` when it may be tried: an IP literal outside the public ranges, or a
 * loopback name. Names are checked again, by the addresses they resolve to, at connect time
 * (`resolvePublic`).
 *
 * @since 0.1.0
 */
export const refusedHost = (host: string): string | undefined => {
  const name = bare(host)
  if (name === "localhost" || name.endsWith(".localhost")) return `${host} is a loopback name`
  const range = rangeOf(name)
  return range === undefined || range === "unicast" ? undefined : `${host} is a non-public address (${range})`
}

/** What a connect-time check found. @since 0.1.0 @category models */
export type Checked =
  | { readonly _tag: "Connect"; readonly address: string; readonly family: number }
  | { readonly _tag: "Refused"; readonly reason: string }

/**
 * Resolve `host` once and check every address it resolves to: connect to the first only if
 * all are public (a name that mixes a public and a private address is refused, whichever a
 * connection would take). With `check: false` (test mode, or `webhooks.allowPrivateUrls`)
 * the first address is taken unchecked. The caller connects to exactly the address returned
 * (`pinnedLookup`), so the name is not resolved a second time between the check and the
 * connection (DNS rebinding).
 *
 * @since 0.1.0
 */
export const resolvePublic = async (host: string, options: {
  readonly resolve: Resolver
  readonly check: boolean
}): Promise<Checked> => {
  const name = bare(host)
  if (options.check) {
    const refused = refusedHost(host)
    if (refused !== undefined) return { _tag: "Refused", reason: `refused: ${refused}` }
  }
  const literal = isIP(name)
  if (literal !== 0) return { _tag: "Connect", address: name, family: literal }
  let addresses: ReadonlyArray<Resolved>
  try {
    addresses = await options.resolve(name)
  } catch (e) {
    const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "failed"
    return { _tag: "Refused", reason: `could not resolve ${name} (${code})` }
  }
  const first = addresses[0]
  if (first === undefined) return { _tag: "Refused", reason: `could not resolve ${name} (no address)` }
  if (options.check) {
    const bad = addresses.find((a) => !isPublic(a.address))
    if (bad !== undefined) {
      return { _tag: "Refused", reason: `refused: ${name} resolves to a non-public address ${bad.address} (${rangeOf(bad.address) ?? "not an IP address"})` }
    }
  }
  return { _tag: "Connect", address: first.address, family: first.family }
}

/**
 * A `lookup` for `net.connect` / `http.request` that answers with the address already
 * checked, whatever name it is asked about: the connection goes there and nowhere else.
 * Node asks with `all: true` when it races address families (`autoSelectFamily`).
 *
 * @since 0.1.0
 */
export const pinnedLookup = (target: Resolved) =>
(
  _hostname: string,
  options: { readonly all?: boolean | undefined } | number | undefined,
  callback: (error: NodeJS.ErrnoException | null, address: string | Array<Resolved>, family?: number) => void
): void => {
  if (typeof options === "object" && options !== null && options.all === true) {
    callback(null, [{ address: target.address, family: target.family }])
  } else {
    callback(null, target.address, target.family)
  }
}
