/**
 * What the deployment offers, from its `hello` reply: a commit of several writes needs a
 * multi-document transaction, which needs a replica set (a single node is enough) or a sharded
 * cluster; task wake-ups need a change stream, which needs the same.
 */
import type { Document } from "mongodb"

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
