/**
 * Identifiers (D4): a prefix and 24 characters of base62 from a cryptographic source.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** The id prefixes of D4. @since 0.1.0 @category constants */
export const prefixes = {
  paymentIntent: "dord_",
  topupIntent: "tuin_",
  payoutIntent: "pout_",
  refund: "rfnd_",
  balanceTransaction: "txn_",
  event: "evt_",
  asset: "asst_",
  webhookEndpoint: "we_",
  request: "req_",
  apiKey: "key_"
} as const

// Random bytes are drawn 4 KiB at a time: one `randomBytes` call per id showed up at 2% of
// the create path's CPU profile (`npm run bench:profile`, docs/performance.md).
let pool = Buffer.alloc(0)
let poolAt = 0
const nextByte = (): number => {
  if (poolAt >= pool.length) {
    pool = randomBytes(4096)
    poolAt = 0
  }
  return pool[poolAt++]!
}

/** `length` base62 characters from a cryptographic source, without modulo bias. @since 0.1.0 @category constructors */
export const randomBase62 = (length = 24): string => {
  let out = ""
  while (out.length < length) {
    const byte = nextByte()
    // 62 * 4 = 248: bytes at or above it are dropped so every character is equally likely.
    if (byte < 248) out += alphabet[byte % 62]
  }
  return out
}

/** Injectable id source, so tests can make ids deterministic. @since 0.1.0 @category tags */
export class IdGenerator extends Context.Tag("@tender/core/IdGenerator")<IdGenerator, {
  readonly make: (prefix: string) => Effect.Effect<string>
}>() {}

/** Cryptographically random ids (D4). @since 0.1.0 @category layers */
export const layer: Layer.Layer<IdGenerator> = Layer.succeed(IdGenerator, {
  make: (prefix) => Effect.sync(() => prefix + randomBase62())
})

/** Whether `id` has the D4 shape for `prefix`. @since 0.1.0 @category predicates */
export const isWellFormed = (prefix: string, id: string): boolean => id.startsWith(prefix) && /^[0-9A-Za-z]{24}$/.test(id.slice(prefix.length))
