/**
 * The demo server (examples/server) against providers' stand-ins of @tender/testing, for one test
 * file. Not a test file itself; it registers Vitest's hooks and asserts with `expect`, so it has
 * its own entry, `@tender/repo-test-support/stand-in-demo`.
 */
import type { ChildProcess } from "node:child_process"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { type DemoServer, startDemo } from "./demo.js"
import { payOnHostedPage } from "./hostedPage.js"
import { createIntent, type MerchantApi, merchantApi, merchantWebhooks, oneMerchantSeed, seedFile, type TestRoute } from "./merchantApi.js"
import { stopProcess } from "./process.js"
import { closeReceivers } from "./receiver.js"
import { type Key, promptpay } from "./requests.js"

/** What the hooks need of a stand-in: what it refused, and how to stop it. */
export interface StandInLike<R> {
  readonly refusals: Array<R>
  readonly close: () => Promise<void>
}

export interface StandInDemoOptions<S, R> {
  /** The merchant is `mch_{slug}` with its key `key_{slug}`; the seed file's folder and the Idempotency-Keys are named after it too. */
  readonly slug: string
  readonly name: string
  readonly key: Key
  readonly routes: ReadonlyArray<TestRoute>
  /** Starts the stand-ins. */
  readonly start: () => Promise<S>
  /** Each stand-in `start` gave, for the refusal check and the stop. */
  readonly each: (standIns: S) => ReadonlyArray<StandInLike<R>>
  /** The demo's environment for them (API bases, keys, secrets). */
  readonly env: (standIns: S) => Record<string, string>
  /** Points their notifications at the demo listening at `url`. */
  readonly connect: (standIns: S, url: string) => void
  /** How a refusal reads in a failed case: @tender/testing's `formatRefusals`. */
  readonly format: (refusals: ReadonlyArray<R>) => string
  /** Register a webhook endpoint for the merchant on a receiver (default true). */
  readonly webhooks?: boolean
}

/**
 * `beforeAll` starts the stand-ins, then the demo on the seed of one merchant with the environment
 * they need, connects them and registers the merchant's webhook endpoint; after each case, a
 * request any stand-in refused fails it; `afterAll` stops the demo, the receivers and the
 * stand-ins. `api` calls the demo as the merchant; `server()` and `hooks()` once it started.
 */
export const standInDemo = <S, R>(options: StandInDemoOptions<S, R>) => {
  const children: Array<ChildProcess> = []
  let standIns: S | undefined
  let server: DemoServer | undefined
  let hooks: Awaited<ReturnType<typeof merchantWebhooks>> | undefined
  const api = merchantApi(() => server!.url, options.key, options.slug)

  beforeAll(async () => {
    standIns = await options.start()
    const seed = seedFile(oneMerchantSeed(options.slug, options.name, options.key, options.routes), `tender-${options.slug}-`)
    server = await startDemo({ TENDER_SEED: seed, ...options.env(standIns) }, { children })
    options.connect(standIns, server.url)
    if (options.webhooks !== false) hooks = await merchantWebhooks(api)
  }, 90_000)
  afterEach(() => {
    const refusals = standIns === undefined ? [] : options.each(standIns).flatMap((s) => s.refusals.splice(0))
    expect(refusals, options.format(refusals)).toEqual([])
  })
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child)))
    closeReceivers()
    if (standIns !== undefined) { for (const s of options.each(standIns)) await s.close() }
  })

  return { api, server: () => server!, hooks: () => hooks! }
}

/**
 * A hosted-mode PromptPay intent of 1,200.00 THB, paid with PromptPay on its hosted page as a
 * payer does (the page opens on the method given at create; paying posts its form with the
 * page's cookie): the intent as created, and `shown()`, the page's HTML after paying.
 */
export const hostedPromptPayPaid = async (api: MerchantApi) => {
  const intent = await createIntent(api, { ...promptpay, amount: "120000", checkout_mode: "hosted" })
  expect(intent.next_action).toMatchObject({ type: "redirect_to_url" })
  const paid = await payOnHostedPage(intent.next_action.url, "th_promptpay")
  expect(paid.status).toBe(303)
  return { intent, shown: paid.shown }
}
