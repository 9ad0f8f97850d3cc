/**
 * The adapters of merchants' own provider accounts (D13), built once per account and reused:
 * a process keeps each account's adapter beside the ciphertext it was built from, and builds it
 * again only when the stored ciphertext differs (new credentials, or a reseal under a newer
 * key). The map is bounded: past `maxAccounts` the least recently used adapter is dropped
 * (and built again when that account is next used).
 */
import type { ProviderAccount } from "../../merchants/Merchants.js"
import type { Environment } from "../../resources/Schemas.js"
import type * as CredentialVault from "../CredentialVault.js"

/** What this needs of an adapter (`Provider.PaymentProvider`, named structurally: Provider.ts builds the registry on this). */
interface Installed<P> {
  readonly accounts?: {
    readonly forAccount: (account: { readonly id: string; readonly environment: Environment; readonly credentials: Readonly<Record<string, string>> }) => P
  } | undefined
}

type Built<P> = { readonly _tag: "Ready"; readonly provider: P } | { readonly _tag: "Unusable"; readonly reason: string }

const maxAccounts = 10_000

export const accountAdapters = <P extends Installed<P>>(byCode: ReadonlyMap<string, P>, vault: CredentialVault.Vault) => {
  const built = new Map<string, { readonly sealed: string; readonly adapter: Built<P> }>()
  const build = (merchantId: string, account: ProviderAccount): Built<P> => {
    const installed = byCode.get(account.provider)
    if (installed?.accounts === undefined) {
      return { _tag: "Unusable", reason: `no installed provider ${account.provider} serves merchants' own accounts` }
    }
    const opened = vault.open(`${merchantId}/${account.id}`, account.credentials)
    if (opened._tag === "Unreadable") return { _tag: "Unusable", reason: `provider account ${account.id}: ${opened.problem}` }
    try {
      const provider = installed.accounts.forAccount({ id: account.id, environment: account.environment, credentials: opened.credentials })
      return { _tag: "Ready", provider }
    } catch {
      // An adapter's own error could quote what it was given: say only that it refused.
      return { _tag: "Unusable", reason: `provider account ${account.id}: the ${account.provider} adapter refused its credentials` }
    }
  }
  return (merchantId: string, account: ProviderAccount): Built<P> => {
    const key = `${merchantId}\u0000${account.id}`
    const found = built.get(key)
    if (found !== undefined && found.sealed === account.credentials) {
      // Most recently used last: the first key is the one to drop.
      built.delete(key)
      built.set(key, found)
      return found.adapter
    }
    const adapter = build(merchantId, account)
    built.delete(key)
    built.set(key, { sealed: account.credentials, adapter })
    if (built.size > maxAccounts) built.delete(built.keys().next().value!)
    return adapter
  }
}
