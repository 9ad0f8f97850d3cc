/**
 * The create the outage tests (Outage, StatementTimeout) send to a demo server through a
 * proxy they break: the demo key's PromptPay payment, under an idempotency key, bounded so an
 * answer not given within 15 s reads "hung" (the defect they guard against) instead of hanging.
 */
import { basic, demoKey, promptpayFor } from "@tender/repo-test-support"

/** What a create was answered: the status (or "hung"), and the headers and body fields the tests read. */
export type Outcome = { status: number | "hung"; retryAfter: string | null; code?: string; id?: string; replayed: boolean }

const auth = basic(demoKey)

/** A create of `amount` (minor units) under `key` at `base`; "hung" after 15 s without an answer. */
export const create = async (base: string, key: string, amount = "150000"): Promise<Outcome> => {
  try {
    const res = await fetch(`${base}/payment_intents`, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(promptpayFor(amount)),
      signal: AbortSignal.timeout(15_000)
    })
    const body = (await res.json()) as { id?: string; error?: { code: string } }
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      replayed: res.headers.get("idempotent-replayed") === "true",
      ...(body.error === undefined ? {} : { code: body.error.code }),
      ...(body.id === undefined ? {} : { id: body.id })
    }
  } catch (e) {
    if (e instanceof DOMException && e.name === "TimeoutError") return { status: "hung", retryAfter: null, replayed: false }
    throw e
  }
}
