/**
 * A seed with one merchant and two key pairs, for the tests of "the seed is authoritative for
 * the keys it declares" (docs/seed-format.md, "Removing a key"): on the in-memory directory
 * (Seed.test.ts) and on PostgreSQL (packages/postgres/test/SeedRevocation.test.ts). Not a test
 * file itself.
 */
import { Effect } from "effect"
import { Authentication, type Seed } from "../src/index.js"

const routes = [{ id: "rt_s_pp", method: "th_promptpay", provider: "simulator", environments: ["test" as const] }]

/** The key pair every seed here declares. */
export const kept = { id: "key_s_kept", public_key: "pk_test_sKeptA1b2C3d4", secret_key: "sk_test_sKeptSECRETa1b2c3" }
/** The key pair the later seed no longer declares. */
export const removed = { id: "key_s_removed", public_key: "pk_test_sGoneA1b2C3d4", secret_key: "sk_test_sGoneSECRETa1b2c3" }

/** The seed of merchant `mch_s` declaring exactly `keys`. */
export const seedWith = (keys: ReadonlyArray<typeof kept>): Seed.Seed => ({
  merchants: [{ id: "mch_s", name: "Seed", allowed_checkout_modes: ["merchant"], api_keys: keys, routes }]
})

/** Authenticate with a seed key pair: its principal, or why not. */
export const login = (k: { readonly public_key: string; readonly secret_key: string }) =>
  Effect.either(Authentication.authenticate({ publicKey: k.public_key, secretKey: k.secret_key }))
