/**
 * What the deployment offers, from its `hello` reply: a commit of several writes needs a
 * multi-document transaction, which needs a replica set (a single node is enough) or a sharded
 * cluster; task wake-ups need a change stream, which needs the same.
 */
import type { Document, TopologyDescription } from "mongodb"

/** The kinds of deployment. */
export type Topology = "replica-set" | "sharded" | "standalone"

/** The deployment a `hello` reply describes: `setName` names a replica set, `msg: "isdbgrid"` a mongos. */
export const classify = (hello: Document): Topology =>
  typeof hello["setName"] === "string" && hello["setName"] !== ""
    ? "replica-set"
    : hello["msg"] === "isdbgrid"
    ? "sharded"
    : "standalone"

/** Whether the deployment runs multi-document transactions. */
export const supportsTransactions = (topology: Topology): boolean => topology !== "standalone"

/** Whether the deployment opens change streams (task wake-ups). */
export const supportsChangeStreams = (topology: Topology): boolean => topology !== "standalone"

/** The one message a standalone server is refused with: what is wrong and the fix. */
export const standaloneMessage = (database: string): string =>
  `@tender/mongodb: the server holding database "${database}" is a standalone mongod, not a replica set. ` +
  `Tender commits each state change and everything it causes in one multi-document transaction, which MongoDB ` +
  `runs only on a replica set or a sharded cluster. A single-node replica set is enough: start mongod with ` +
  `--replSet rs0 and run rs.initiate() once (docker: docker run -d -p 27017:27017 mongo:7 --replSet rs0, then ` +
  `mongosh --eval 'rs.initiate()'), and connect with ?directConnection=true or ?replicaSet=rs0.`

/**
 * Why no server answered the first `hello`, when the driver's server selection error says it
 * (its `reason`, the `TopologyDescription` it gave up on): a replica set was found whose members
 * cannot be reached by the names they announce. The usual case is a single-node replica set in a
 * container, reached without `directConnection=true`: the driver follows the member's own name
 * (the container's host name), which the host cannot resolve, and times out after 30 s.
 */
export const unreachableSet = (error: unknown): string | undefined => {
  const reason = typeof error === "object" && error !== null && "reason" in error
    ? (error as { reason?: Pick<TopologyDescription, "type" | "setName" | "servers"> }).reason
    : undefined
  if (reason?.type !== "ReplicaSetNoPrimary" || !(reason.servers instanceof Map)) return undefined
  const members = [...reason.servers.values()].map((s) => s.error === null ? s.address : `${s.address} (${s.error.message})`)
  return `found replica set ${JSON.stringify(reason.setName ?? "")}, but none of its members as they name themselves could be reached: ` +
    `${members.join(", ")}. A single-node replica set in a container names itself by the container's host name, which this ` +
    `host cannot reach: connect with ?directConnection=true, or make the member's name resolvable here (rs.initiate with ` +
    `the host name clients use).`
}
