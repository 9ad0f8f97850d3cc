/**
 * Provider accounts per merchant (D13): a merchant's own accounts at providers, checked by the
 * adapter's credential schema and sealed when written, and the adapter each object's provider
 * calls go through for its whole life (`adapterOf`): the account of the route that took it, or
 * the deployment's own account when it names none. docs/provider-accounts.md.
 *
 * @since 0.1.0
 */
import { Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import type { AccountOwner, Merchant, ProviderAccount } from "../merchants/Merchants.js"
import { accountOf, Merchants } from "../merchants/Merchants.js"
import { ValidationFailed } from "../resources/Errors.js"
import { Environment } from "../resources/Schemas.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Capabilities, PaymentProvider } from "./Provider.js"
import { capabilitiesOf, ProviderRegistry, ProviderUnavailable } from "./Provider.js"

/** An account as a seed or `merchants.create` writes it: its credentials in clear, about to be sealed. @since 0.1.0 @category schemas */
export const AccountInput = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/)).annotations({ message: () => "must be 1 to 64 letters, digits, \"_\" or \"-\"" }),
  provider: Schema.String.pipe(Schema.minLength(1)),
  environment: Environment,
  credentials: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** @since 0.1.0 @category schemas */
export type AccountInput = typeof AccountInput.Type

/**
 * What an adapter's `forAccount` throws for credentials it cannot use, naming the field and
 * what it must be (never the value): written as 400 `validation_failed` at that field.
 *
 * @since 0.1.0 @category errors
 */
export class CredentialsRefused extends Error {
  constructor(readonly field: string, readonly problem: string) {
    super(`${field} ${problem}`)
  }
}

/** The description annotation of `field` in a struct schema (through refinements), what an error says the field must be. */
const descriptionOf = (ast: SchemaAST.AST, field: string): string | undefined => {
  if (ast._tag === "Refinement" || ast._tag === "Transformation") return descriptionOf(ast._tag === "Refinement" ? ast.from : ast.from, field)
  if (ast._tag !== "TypeLiteral") return undefined
  const property = ast.propertySignatures.find((p) => p.name === field)
  return property === undefined ? undefined : Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(property.type))
}

/**
 * Check `input`'s credentials with its provider's schema and a trial build of its adapter. A
 * problem names the field at `path` and what it must be: it never quotes what was given.
 *
 * @since 0.1.0
 */
export const checkCredentials = (
  installed: PaymentProvider | undefined,
  input: AccountInput,
  path: string
): Either.Either<Readonly<Record<string, string>>, ValidationFailed> => {
  if (installed?.accounts === undefined) {
    return Either.left(ValidationFailed.at(`${path}.provider`, `No installed provider ${JSON.stringify(input.provider)} serves merchants' own accounts.`))
  }
  const support = installed.accounts
  const decoded = Schema.decodeUnknownEither(support.credentials, { errors: "all", onExcessProperty: "error" })(input.credentials)
  if (Either.isLeft(decoded)) {
    const details = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) => {
      const field = issue.path.map(String).join(".")
      const at = field === "" ? `${path}.credentials` : `${path}.credentials.${field}`
      const message = issue._tag === "Missing" ?
        `${at} is required by ${input.provider}`
        : issue._tag === "Unexpected" ?
        `${at} is not a credential of ${input.provider}`
        : `${at} ${descriptionOf(support.credentials.ast, String(issue.path[0] ?? "")) ?? "is not valid"}`
      return { param: at, message }
    })
    return Either.left(ValidationFailed.many(details))
  }
  try {
    support.forAccount({ id: input.id, environment: input.environment, credentials: decoded.right })
  } catch (error) {
    return Either.left(
      error instanceof CredentialsRefused
        ? ValidationFailed.at(`${path}.credentials.${error.field}`, `${path}.credentials.${error.field} ${error.problem}`)
        : ValidationFailed.at(`${path}.credentials`, `The ${input.provider} adapter cannot use these credentials for a ${input.environment} account.`)
    )
  }
  return Either.right(decoded.right)
}

/**
 * The accounts of merchant `merchantId` as stored: each checked (`checkCredentials`) and its
 * credentials sealed under the host's newest key. Holding credentials without a key configured
 * is 400 (D13). `path` names the list in errors (`provider_accounts`).
 *
 * @since 0.1.0
 */
export const seal = (merchantId: string, inputs: ReadonlyArray<AccountInput>, path = "provider_accounts") =>
  Effect.gen(function*() {
    if (inputs.length === 0) return []
    const registry = yield* ProviderRegistry
    if (!registry.vault.canSeal) {
      return yield* ValidationFailed.at(
        path,
        "Provider account credentials cannot be stored: the host has configured no provider account key (providerAccountKeys)."
      )
    }
    const out: Array<ProviderAccount> = []
    for (const [i, input] of inputs.entries()) {
      const checked = checkCredentials(registry.get(input.provider), input, `${path}.${i}`)
      if (Either.isLeft(checked)) return yield* checked.left
      out.push({
        id: input.id,
        provider: input.provider,
        environment: input.environment,
        credentials: registry.vault.seal(`${merchantId}/${input.id}`, checked.right)
      })
    }
    return out
  })

/** The refusal of an account id another merchant holds, at `path`. */
const heldElsewhere = (id: string, at: string) =>
  ValidationFailed.at(at, `Another merchant holds a provider account ${JSON.stringify(id)}: account ids are unique across merchants.`)

/**
 * Refuse account ids another merchant holds already (an account's id names its notification
 * door, so it is unique across merchants). A write racing past this check is refused by the
 * store (`putMerchant`'s `UniqueViolation`), which `putChecked` answers the same way.
 *
 * @since 0.1.0
 */
export const checkUnique = (merchantId: string, accounts: ReadonlyArray<{ readonly id: string }>, path = "provider_accounts") =>
  Effect.gen(function*() {
    const merchants = yield* Merchants
    for (const [i, a] of accounts.entries()) {
      const holders = yield* merchants.findProviderAccount(a.id)
      if (holders.some((h) => h.merchant.id !== merchantId)) return yield* heldElsewhere(a.id, `${path}.${i}.id`)
    }
  })

/**
 * Put `merchant`, answering a store's refusal of one of its account ids (another merchant's
 * write took it between `checkUnique` and this one) as the 400 `checkUnique` gives.
 *
 * @since 0.1.0
 */
export const putChecked = (merchant: Merchant, path = "provider_accounts") =>
  Effect.flatMap(
    Merchants,
    (merchants) =>
      Effect.catchTag(merchants.putMerchant(merchant), "UniqueViolation", () =>
        Effect.fail(ValidationFailed.at(path, "Another merchant took one of these provider account ids meanwhile: account ids are unique across merchants.")))
  )

/** An adapter whose every call fails as the provider unavailable: an account that cannot be used now (its reason never holds a secret). */
const unusable = (code: string, reason: string, base: PaymentProvider | undefined): PaymentProvider => {
  const fail = () => Effect.fail(new ProviderUnavailable({ provider: code, reason, ambiguous: false }))
  return {
    code,
    methods: base?.methods ?? [],
    createPayment: fail,
    confirmPayment: base?.confirmPayment === undefined ? undefined : fail,
    getPaymentStatus: base?.getPaymentStatus === undefined ? undefined : fail,
    submitReceipt: base?.submitReceipt === undefined ? undefined : fail,
    cancelPayment: base?.cancelPayment === undefined ? undefined : fail,
    refund: base?.refund === undefined ? undefined : fail,
    sendPayout: base?.sendPayout === undefined ? undefined : fail
  }
}

/**
 * The adapter of `merchant`'s account `accountId` at `code`, or undefined when the merchant
 * holds no such account of that provider. An account that cannot be used now (its key is not
 * configured, its adapter refuses it) answers an adapter whose calls fail as the provider
 * unavailable, so its tasks retry and its route counts the failures.
 *
 * @since 0.1.0
 */
export const adapterForAccount = (merchant: Merchant, code: string, accountId: string) =>
  Effect.map(ProviderRegistry, (registry) => {
    const account = accountOf(merchant, accountId)
    if (account === undefined || account.provider !== code) return undefined
    const built = registry.forAccount(merchant.id, account)
    return built._tag === "Ready" ? built.provider : unusable(code, built.reason, registry.get(code))
  })

/** What names an object's provider and account: a payment intent, refund or payout record. @since 0.1.0 @category models */
export interface AtProvider {
  readonly merchantId: string
  readonly providerCode: string | null
  readonly providerAccount: string | null
}

/**
 * The adapter every provider call for `object` goes through (D13): its account's, for its whole
 * life, whatever routes say now; the deployment's when it names no account. Undefined when the
 * provider is not installed, or the merchant no longer holds the account (then nothing is sent).
 *
 * @since 0.1.0
 */
export const adapterOf = (object: AtProvider): Effect.Effect<PaymentProvider | undefined, StorageError, ProviderRegistry | Merchants> =>
  Effect.gen(function*() {
    if (object.providerCode === null) return undefined
    if (object.providerAccount === null) return (yield* ProviderRegistry).get(object.providerCode)
    const merchant = yield* (yield* Merchants).findMerchant(object.merchantId)
    if (Option.isNone(merchant)) return undefined
    return yield* adapterForAccount(merchant.value, object.providerCode, object.providerAccount)
  })

/**
 * What the provider of `payment` can do for it (`Provider.capabilitiesOf`, from its installed
 * adapter and the method it was paid with): nothing for a payment at no provider Tender still
 * has. An account's adapter is built by the same adapter, so it can do what the installed one can.
 *
 * @since 0.1.0
 */
export const capabilitiesOfPayment = (payment: {
  readonly providerCode: string | null
  readonly paymentMethod: string | null
}): Effect.Effect<Capabilities, never, ProviderRegistry> =>
  Effect.map(ProviderRegistry, (registry) => {
    const provider = payment.providerCode === null ? undefined : registry.get(payment.providerCode)
    return provider === undefined
      ? { confirm: false, poll: false, cancel: false, refund: false, receipt: false }
      : capabilitiesOf(provider, provider.methods.find((m) => m.method === payment.paymentMethod))
  })

/**
 * The account whose notification door is `/provider_notifications/{code}/{accountId}`: its
 * merchant and adapter, or none when no single merchant holds an account `accountId` of
 * provider `code`.
 *
 * @since 0.1.0
 */
export const door = (
  code: string,
  accountId: string
): Effect.Effect<Option.Option<{ readonly owner: AccountOwner; readonly provider: PaymentProvider }>, StorageError, ProviderRegistry | Merchants> =>
  Effect.gen(function*() {
    const holders = yield* (yield* Merchants).findProviderAccount(accountId)
    const owner = holders.length === 1 ? holders[0]! : undefined
    if (owner === undefined || owner.account.provider !== code) return Option.none()
    const built = (yield* ProviderRegistry).forAccount(owner.merchant.id, owner.account)
    return built._tag === "Ready" ? Option.some({ owner, provider: built.provider }) : Option.none()
  })

/** The account as a merchant's configuration shows it: never its credentials, sealed or not. @since 0.1.0 */
export const publicView = (account: ProviderAccount) => ({ id: account.id, provider: account.provider, environment: account.environment })

/** What a reseal did: accounts moved to the newest key, accounts already under it, and accounts it could not open. @since 0.1.0 @category models */
export interface Resealed {
  readonly moved: number
  readonly current: number
  /** `merchant/account` of each account no configured key opens (left as they are). */
  readonly unreadable: ReadonlyArray<string>
}

/**
 * Move every account's credentials under the newest host key (D13 rotation): each merchant is
 * read afresh just before its write, and written only when one of its accounts moved. An account
 * no configured key opens is left as it is and reported. Run by `tender accounts reseal`.
 *
 * @since 0.1.0
 */
export const reseal = (pageSize = 100): Effect.Effect<Resealed, StorageError, ProviderRegistry | Merchants> =>
  Effect.gen(function*() {
    const vault = (yield* ProviderRegistry).vault
    const merchants = yield* Merchants
    let moved = 0
    let current = 0
    const unreadable: Array<string> = []
    let after: string | null = null
    for (;;) {
      const page: ReadonlyArray<Merchant> = yield* merchants.listMerchants(after, pageSize)
      for (const listed of page) {
        if ((listed.providerAccounts ?? []).every((a) => vault.isCurrent(a.credentials))) {
          current += listed.providerAccounts?.length ?? 0
          continue
        }
        const fresh = yield* merchants.findMerchant(listed.id)
        if (Option.isNone(fresh)) continue
        let changed = false
        const accounts = (fresh.value.providerAccounts ?? []).map((a) => {
          if (vault.isCurrent(a.credentials)) {
            current++
            return a
          }
          const opened = vault.open(`${fresh.value.id}/${a.id}`, a.credentials)
          if (opened._tag === "Unreadable") {
            unreadable.push(`${fresh.value.id}/${a.id}`)
            return a
          }
          moved++
          changed = true
          return { ...a, credentials: vault.seal(`${fresh.value.id}/${a.id}`, opened.credentials) }
        })
        if (changed) yield* merchants.putMerchant({ ...fresh.value, providerAccounts: accounts })
      }
      if (page.length < pageSize) break
      after = page[page.length - 1]!.id
    }
    return { moved, current, unreadable }
  })
