/**
 * What the demo-server tests with a real provider's stand-in share: the seed written to a file
 * for TENDER_SEED, and a merchant's JSON calls of the API (Basic auth, a fresh Idempotency-Key
 * on every POST).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { basic, type Key } from "./requests.js"

/** Writes `seed` as JSON to a new temporary folder and answers the file's path, for TENDER_SEED. */
export const seedFile = (seed: unknown, prefix = "tender-seed-"): string => {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), "seed.json")
  writeFileSync(path, JSON.stringify(seed))
  return path
}

/** An answer of the API: its status and parsed JSON body. */
export interface ApiAnswer {
  readonly status: number
  readonly body: any
}

/** A merchant's calls of the API at `baseUrl()` with `key`; each POST carries a new Idempotency-Key. */
export const merchantApi = (baseUrl: () => string, key: Key, name = "e2e") => {
  let n = 0
  return async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { authorization: basic(key), "content-type": "application/json", ...(method === "POST" ? { "idempotency-key": `${name}-${++n}-${Date.now()}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, body: await res.json() }
  }
}
