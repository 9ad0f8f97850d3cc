/**
 * Provider account credentials at rest (D13): sealed with AES-256-GCM under a key the host
 * gives, each ciphertext naming the id of the key that sealed it. The host rotates by putting a
 * new key first: new seals use it, the older keys still open what they sealed, and
 * `reseal` (the `tender accounts reseal` command) moves old ciphertexts forward.
 *
 * A ciphertext is bound to the account it belongs to (its merchant and account id are the
 * cipher's additional data), so a ciphertext copied onto another account does not open.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/** One host key: its id (named by every ciphertext it seals) and 32 random bytes, base64. @since 0.1.0 @category models */
export interface AccountKey {
  readonly id: string
  /** 32 random bytes in base64 (`openssl rand -base64 32`). */
  readonly key: string
}

/** Seals and opens credentials. @since 0.1.0 @category models */
export interface Vault {
  /** Whether a key is given: without one, credentials cannot be written (D13). */
  readonly canSeal: boolean
  /** Seal `credentials` of the account `owner` (`merchant/account`) under the newest key. Throws without a key. */
  readonly seal: (owner: string, credentials: Readonly<Record<string, string>>) => string
  /** The credentials `sealed` holds, or why they cannot be read (unknown key, not this account's, damaged): never the secret. */
  readonly open: (owner: string, sealed: string) => Opened
  /** Whether `sealed` is under the newest key already (else `reseal` moves it). */
  readonly isCurrent: (sealed: string) => boolean
  /** The id of the key that sealed `sealed`, or undefined when it is not a ciphertext of this format. */
  readonly keyIdOf: (sealed: string) => string | undefined
}

/** What `open` found: the credentials, or why they cannot be read (never the secret). @since 0.1.0 @category models */
export type Opened =
  | { readonly _tag: "Opened"; readonly credentials: Readonly<Record<string, string>> }
  | { readonly _tag: "Unreadable"; readonly problem: string }

const unreadable = (problem: string): Opened => ({ _tag: "Unreadable", problem })

/** What a bad key list is refused with, at start. @since 0.1.0 @category errors */
export class InvalidAccountKeys extends Error {}

const format = "tv1"
const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/**
 * A vault of `keys`, newest first. A key that is not 32 bytes of base64, an id that is not 1 to
 * 64 letters, digits, `_` or `-`, or two keys with one id throw `InvalidAccountKeys` (naming the
 * key by its id, never its bytes). No keys: a vault that opens nothing and seals nothing.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (keys: ReadonlyArray<AccountKey> = []): Vault => {
  const byId = new Map<string, Buffer>()
  for (const [i, k] of keys.entries()) {
    if (typeof k?.id !== "string" || !keyIdPattern.test(k.id)) {
      throw new InvalidAccountKeys(`provider account key ${i}: its id must be 1 to 64 letters, digits, "_" or "-"`)
    }
    const bytes = typeof k.key === "string" && /^[A-Za-z0-9+/_-]+={0,2}$/.test(k.key) ? Buffer.from(k.key, "base64") : Buffer.alloc(0)
    if (bytes.length !== 32) throw new InvalidAccountKeys(`provider account key ${k.id}: it must be 32 random bytes in base64 (openssl rand -base64 32)`)
    if (byId.has(k.id)) throw new InvalidAccountKeys(`provider account key ${k.id}: two keys share this id`)
    byId.set(k.id, bytes)
  }
  const newest = keys[0]?.id
  const parts = (sealed: string) => {
    const p = typeof sealed === "string" ? sealed.split(".") : []
    return p.length === 5 && p[0] === format ? p as [string, string, string, string, string] : undefined
  }
  return {
    canSeal: newest !== undefined,
    seal: (owner, credentials) => {
      if (newest === undefined) throw new InvalidAccountKeys("no provider account key is configured: credentials cannot be stored")
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", byId.get(newest)!, iv)
      cipher.setAAD(Buffer.from(owner, "utf8"))
      const body = Buffer.concat([cipher.update(JSON.stringify(credentials), "utf8"), cipher.final()])
      return [format, newest, b64(iv), b64(cipher.getAuthTag()), b64(body)].join(".")
    },
    open: (owner, sealed) => {
      const p = parts(sealed)
      if (p === undefined) return unreadable("the stored credentials are not a Tender ciphertext")
      const key = byId.get(p[1])
      if (key === undefined) return unreadable(`the stored credentials are sealed under key ${p[1]}, which is not configured`)
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(p[2], "base64url"))
        decipher.setAAD(Buffer.from(owner, "utf8"))
        decipher.setAuthTag(Buffer.from(p[3], "base64url"))
        const text = Buffer.concat([decipher.update(Buffer.from(p[4], "base64url")), decipher.final()]).toString("utf8")
        const value: unknown = JSON.parse(text)
        if (typeof value !== "object" || value === null || Array.isArray(value)) return unreadable("the stored credentials are damaged")
        return { _tag: "Opened", credentials: value as Record<string, string> }
      } catch {
        // The message of a failed authentication says nothing of the plaintext; it is not passed on anyway.
        return unreadable(`the stored credentials do not open under key ${p[1]} for this account`)
      }
    },
    isCurrent: (sealed) => parts(sealed)?.[1] === newest,
    keyIdOf: (sealed) => parts(sealed)?.[1]
  }
}
