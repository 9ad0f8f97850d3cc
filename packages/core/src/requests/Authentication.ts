/**
 * Authentication (spec 5, D2): Basic credentials `<public_key>:<secret_key>`; the public
 * key's prefix fixes the environment; secrets compared as hashes in constant time.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { timingSafeEqual } from "node:crypto"
import { environmentOfPublicKey, environmentOfSecretKey, hashSecret, Merchants } from "../merchants/Merchants.js"
import type { Merchant } from "../merchants/Merchants.js"
import { AuthenticationRequired, InvalidApiKey } from "../resources/Errors.js"
import type { Environment } from "../resources/Schemas.js"
import type { StorageError } from "../storage/StorageError.js"

/** Who is calling: every read and write is scoped to this (5.3, 5.4). @since 0.1.0 @category models */
export interface Principal {
  readonly merchant: Merchant
  readonly environment: Environment
  readonly apiKeyId: string
}

const invalid = () => new InvalidApiKey({ message: "The API key pair is not valid." })

/**
 * What an unknown key's secret is compared with: a hash no secret has, computed once, so an
 * unknown key costs the same hashing (the presented secret only) as a known one (D2).
 */
const decoyHash = hashSecret("\u0000")

/**
 * Parse an `Authorization` header value into a key pair. A missing header, a scheme other
 * than Basic or undecodable base64 is `authentication_required`.
 *
 * @since 0.1.0
 */
export const parseBasic = (
  header: string | undefined
): Effect.Effect<{ publicKey: string; secretKey: string }, AuthenticationRequired> => {
  const required = (message: string) => Effect.fail(new AuthenticationRequired({ message }))
  if (header === undefined || header.trim() === "") {
    return required("Authentication is required: send your key pair as HTTP Basic credentials.")
  }
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header)
  if (match === null || match[1] === undefined || match[1].length % 4 !== 0) {
    return required("The Authorization header must be Basic with base64 of <public_key>:<secret_key>.")
  }
  const decoded = Buffer.from(match[1], "base64").toString("utf8")
  // The public key holds no colon; the secret may (D2: split at the first colon only).
  const colon = decoded.indexOf(":")
  if (colon <= 0 || colon === decoded.length - 1) {
    return required("The Authorization header must be Basic with base64 of <public_key>:<secret_key>.")
  }
  return Effect.succeed({ publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) })
}

/**
 * Resolve key pairs to principals with `merchants`. Nothing is read from the context, so an
 * HTTP binding made once with the directory provides nothing per request (providing the
 * directory merged a whole context into every request).
 *
 * @since 0.1.0
 */
export const authenticator = (merchants: Merchants["Type"]) =>
(
  credentials: { readonly publicKey: string; readonly secretKey: string }
): Effect.Effect<Principal, InvalidApiKey | StorageError> =>
  Effect.flatMap(merchants.findCredentials(credentials.publicKey), (found) => {
    const publicEnv = environmentOfPublicKey(credentials.publicKey)
    const secretEnv = environmentOfSecretKey(credentials.secretKey)
    // Hash and compare even when the key is unknown, so timing says nothing about which half is
    // wrong: one hash, one constant-time comparison, on either path. The merchant is not read
    // before the secret matched (an adapter may defer parsing it until then).
    const presented = Buffer.from(hashSecret(credentials.secretKey), "hex")
    const stored = Buffer.from(Option.isSome(found) ? found.value.apiKey.secretHash : decoyHash, "hex")
    const secretMatches = presented.length === stored.length && timingSafeEqual(presented, stored)
    if (
      Option.isNone(found) || !secretMatches || publicEnv === undefined || secretEnv !== publicEnv ||
      found.value.apiKey.environment !== publicEnv || found.value.apiKey.revokedAt !== null
    ) {
      return Effect.fail(invalid())
    }
    return Effect.succeed({ merchant: found.value.merchant, environment: publicEnv, apiKeyId: found.value.apiKey.id })
  })

/** Resolve a key pair to its principal. @since 0.1.0 */
export const authenticate = (
  credentials: { readonly publicKey: string; readonly secretKey: string }
): Effect.Effect<Principal, InvalidApiKey | StorageError, Merchants> => Effect.flatMap(Merchants, (merchants) => authenticator(merchants)(credentials))
