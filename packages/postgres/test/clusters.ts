/**
 * A PostgreSQL 15 primary and its synchronous streaming standby on this machine, made with
 * Debian's cluster tools (`pg_createcluster`, `pg_basebackup`, `pg_ctlcluster`), for the failover
 * test. Each cluster has its own name (`tender_fo_<pid>_…`), a free port and a data directory
 * under a temporary folder; the machine's own clusters (`main` on 5432) are never touched. Not a
 * test file itself.
 */
import { freePort } from "@tender/repo-test-support"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import pg from "pg"

const run = promisify(execFile)

// `pg_ctlcluster` runs with `--skip-systemctl-redirect`: on a machine run by systemd it would
// otherwise start and stop clusters through their units, whose restart policy is not the test's.

const version = "15"
const bin = `/usr/lib/postgresql/${version}/bin`

/** Why clusters cannot be made here, or undefined when they can. */
export const clusterSkipReason = (): string | undefined => {
  if (process.platform !== "linux") return `clusters are made with Debian's PostgreSQL tools, on Linux (this is ${process.platform})`
  if (process.getuid?.() !== 0) return "making PostgreSQL clusters needs root (pg_createcluster, and pg_basebackup run as postgres)"
  for (const tool of ["/usr/bin/pg_createcluster", "/usr/bin/pg_ctlcluster", "/usr/bin/pg_dropcluster", "/usr/sbin/runuser", `${bin}/pg_basebackup`]) {
    if (!existsSync(tool)) return `${tool} is missing (install postgresql-${version})`
  }
  return undefined
}

/**
 * The settings of every cluster (a `conf.d` file of their own). `fsync` is off for speed: only
 * the postmaster is killed, never the machine, and the page cache outlives a process. Small
 * memory and few connections: the machine is shared.
 */
const settings = `listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = on
shared_buffers = 16MB
max_connections = 40
`

/** One cluster of the set: its port, and the faults and steps a failover is made of. */
export interface Node {
  readonly name: string
  readonly port: number
  /** `kill -9` of its postmaster (its backends end on their own, as on a crash). */
  readonly kill: () => void
  /** `pg_ctlcluster … promote`: a standby ends recovery; returns once it accepts writes. */
  readonly promote: () => Promise<void>
  /** The server's log so far (Debian's, under /var/log/postgresql; removed with the cluster). */
  readonly log: () => string
}

/** The clusters of one test file. */
export interface ClusterSet {
  /** A new primary, running, with no standby yet. */
  readonly primary: () => Promise<Node>
  /**
   * A new standby of `primary` (a base backup of it), running and streaming, which `primary` then
   * waits for on every commit: a commit is answered only once the standby has its WAL, so a
   * promoted standby holds everything answered before.
   */
  readonly standbyOf: (primary: Node) => Promise<Node>
  /** Stop and drop every cluster made and remove their folder; never fails. */
  readonly drop: () => Promise<void>
}

/** One statement on the cluster at `port` (database `postgres`, trust auth), its rows. */
export const query = async <A extends Record<string, unknown>>(port: number, text: string, database = "postgres"): Promise<Array<A>> => {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database, connectionTimeoutMillis: 5_000 })
  await client.connect()
  try {
    return (await client.query(text)).rows as Array<A>
  } finally {
    await client.end()
  }
}

/** Whether process `pid` still runs. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Drop the clusters of earlier runs whose process is gone (a run killed before its `afterAll`). */
const dropStale = async () => {
  const { stdout } = await run("pg_lsclusters", ["--no-header"])
  for (const line of stdout.split("\n")) {
    const [v, name] = line.trim().split(/\s+/)
    const owner = /^tender_fo_(\d+)_/.exec(name ?? "")?.[1]
    if (v === version && owner !== undefined && !alive(Number(owner))) {
      await run("pg_dropcluster", ["--stop", version, name!]).catch(() => {})
    }
  }
}

/** Clusters made on demand, under one temporary folder, named after this process. */
export const clusterSet = async (): Promise<ClusterSet> => {
  await dropStale()
  const base = `tender_fo_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const folder = mkdtempSync(join(tmpdir(), "tender-failover-"))
  await run("chown", ["postgres:postgres", folder])
  const made: Array<string> = []

  const node = (name: string, port: number): Node => ({
    name,
    port,
    kill: () => {
      const pid = Number(readFileSync(join(folder, name, "postmaster.pid"), "latin1").split("\n")[0])
      process.kill(pid, "SIGKILL")
    },
    promote: async () => {
      await run("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, "promote"])
    },
    log: () => {
      const file = `/var/log/postgresql/postgresql-${version}-${name}.log`
      return existsSync(file) ? readFileSync(file, "utf8") : ""
    }
  })

  const create = async (conf: string) => {
    const name = `${base}_${made.length}`
    const port = await freePort()
    made.push(name)
    await run("pg_createcluster", [version, name, "-p", String(port), "-d", join(folder, name), "--", "--auth=trust", "--no-sync"])
    writeFileSync(`/etc/postgresql/${version}/${name}/conf.d/tender-failover.conf`, conf)
    return node(name, port)
  }

  /** Until `primary` reports a standby of it whose replication `column` is `value`. */
  const reports = async (primary: Node, column: "state" | "sync_state", value: string) => {
    for (let i = 0; i < 400; i++) {
      const rows = await query<Record<string, string>>(primary.port, `SELECT ${column} FROM pg_stat_replication`)
      if (rows.some((r) => r[column] === value)) return
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`no standby of ${primary.name} reached ${column} ${value}`)
  }

  return {
    primary: async () => {
      const primary = await create(settings)
      await run("pg_ctlcluster", ["--skip-systemctl-redirect", version, primary.name, "start"])
      return primary
    },
    standbyOf: async (primary) => {
      // A cluster of its own (its configuration in /etc, as Debian keeps it) whose data directory
      // is replaced by a base backup of the primary, `-R` writing standby.signal and the
      // primary's address.
      const standby = await create(settings)
      const data = join(folder, standby.name)
      for (const entry of readdirSync(data)) rmSync(join(data, entry), { recursive: true, force: true })
      await run("runuser", [
        "-u",
        "postgres",
        "--",
        `${bin}/pg_basebackup`,
        "-h",
        "127.0.0.1",
        "-p",
        String(primary.port),
        "-U",
        "postgres",
        "-D",
        data,
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
        "--no-sync"
      ])
      await run("pg_ctlcluster", ["--skip-systemctl-redirect", version, standby.name, "start"])
      await reports(primary, "state", "streaming")
      // Set on the primary once its standby streams, by ALTER SYSTEM and a reload, as a failover
      // manager does when a standby has caught up; after the backup, so the standby does not
      // inherit it. A primary that waits for a standby that is not there never finishes a
      // commit (every write then answers 503 at the statement timeout; docs/postgres.md,
      // "High availability"): promoted, the standby has none until one is made for it.
      await query(primary.port, "ALTER SYSTEM SET synchronous_standby_names = '*'")
      await query(primary.port, "SELECT pg_reload_conf()")
      await reports(primary, "sync_state", "sync")
      return standby
    },
    drop: async () => {
      for (const name of made.splice(0).reverse()) await run("pg_dropcluster", ["--stop", version, name]).catch(() => {})
      rmSync(folder, { recursive: true, force: true })
    }
  }
}
