/**
 * Why Tender could not use a PostgreSQL database, in one line that names the cause and what to
 * do (docs/postgres.md, "When it cannot start"). The driver's error sits several causes deep
 * (an Effect fiber failure, a `SqlError`, a storage error); `describe` finds it, by SQLSTATE and
 * socket code, never by message text, and words it for an operator.
 *
 * @since 0.1.0
 */
import { Cause, Runtime } from "effect"

/** The driver or socket errors found in a cause, outermost first. */
const driverErrors = (cause: unknown): ReadonlyArray<Record<string, unknown>> => {
  const found: Array<Record<string, unknown>> = []
  const seen = new Set<unknown>()
  const visit = (u: unknown, depth: number): void => {
    if (typeof u !== "object" || u === null || seen.has(u) || depth > 12) return
    seen.add(u)
    if (Runtime.isFiberFailure(u)) return visit(u[Runtime.FiberFailureCauseId], depth + 1)
    if (Cause.isCause(u)) {
      for (const e of [...Cause.failures(u), ...Cause.defects(u)]) visit(e, depth + 1)
      return
    }
    const record = u as Record<string, unknown>
    if (typeof record["code"] === "string") found.push(record)
    if (Array.isArray(record["errors"])) { for (const e of record["errors"]) visit(e, depth + 1) }
    visit(record["cause"], depth + 1)
  }
  visit(cause, 0)
  return found
}

const text = (e: Record<string, unknown>) => String(e["message"] ?? "")

/** Where a socket error was dialling, from Node's `address` and `port` fields. */
const addressOf = (e: Record<string, unknown>): string | undefined => {
  const dialled = Array.isArray(e["errors"]) ? e["errors"] as Array<Record<string, unknown>> : [e]
  const at = dialled
    .filter((d) => typeof d["address"] === "string")
    .map((d) => typeof d["port"] === "number" ? `${String(d["address"])}:${d["port"]}` : String(d["address"]))
  return at.length === 0 ? undefined : at.join(", ")
}

/** The sentence for one driver error, or undefined when its code is not one an operator can act on. */
const sentence = (e: Record<string, unknown>): string | undefined => {
  const code = String(e["code"])
  switch (code) {
    case "3D000":
      return `${text(e)}: create it, or name an existing database in the connection string`
    case "28000":
      return `${text(e)}: create the role, or name an existing one in the connection string`
    case "28P01":
      return `${text(e)}: check the password in the connection string`
    case "42P01":
    case "42703":
      // An undefined table or column of Tender's: the schema is older than this version.
      return `${text(e)}: the database is not migrated for this version of Tender; run npx tender migrate (or start with migrate: true)`
    case "57P03":
      return `${text(e)}: the server is starting up or shutting down; try again shortly`
    case "25006":
      // A standby (or a database set read-only) behind the connection string: Tender must write.
      return `${text(e)}: the server is read-only (a standby, or default_transaction_read_only); point the connection string at the primary`
    case "53300":
      return `${text(e)}: the server has no connection to spare; raise max_connections or lower the pool size`
    case "ECONNREFUSED":
      return `connection refused at ${addressOf(e) ?? "the database address"}: is PostgreSQL running there? check the host and port of the connection string`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host ${JSON.stringify(e["hostname"] ?? "")} not found: check the host of the connection string`
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
      return `no answer from ${addressOf(e) ?? "the database address"} (${code}): check the host, port and network`
    default:
      return undefined
  }
}

/**
 * The cause of a PostgreSQL failure (any error, Effect `Cause` or fiber failure holding the
 * driver's error), as one line naming what happened and what to do; `undefined` when no driver
 * error in it is one an operator can act on.
 *
 * @since 0.1.0
 * @category diagnostics
 */
export const describe = (cause: unknown): string | undefined => {
  for (const e of driverErrors(cause)) {
    const line = sentence(e)
    if (line !== undefined) return line.replace(/\s*\n\s*/g, " ")
  }
  return undefined
}
