import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { Webhook } from "standardwebhooks"
import { WebhookSignature } from "../src/index.js"

// The vectors of the standardwebhooks package's own tests.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const msgId = "msg_p5jXN8AQM9LWM0D4loKWxJek"
const payload = "{\"test\": 2432232314}"

describe("webhook signatures (D7, Standard Webhooks)", () => {
  it("D7 our signature of the reference vector is the reference signature", () => {
    assert.strictEqual(WebhookSignature.signature(secret, msgId, 1614265330, payload), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("D7 the independent standardwebhooks verifier accepts what we sign, with one secret or several (rotation)", () => {
    const now = Date.now()
    const timestamp = Math.floor(now / 1000)
    const other = WebhookSignature.newSecret()
    assert.match(other, /^whsec_[A-Za-z0-9+/]{32}$/)
    for (const secrets of [[secret], [other, secret], [secret, other]]) {
      const headers = WebhookSignature.sign(secrets, { id: msgId, timestamp, body: payload })
      assert.deepStrictEqual(new Webhook(secret).verify(payload, headers), { test: 2432232314 })
    }
    // And refuses it under a secret that did not sign.
    const headers = WebhookSignature.sign([other], { id: msgId, timestamp, body: payload })
    assert.throws(() => new Webhook(secret).verify(payload, headers))
  })

  it("D7 our verifier passes the standardwebhooks test cases: valid, multi-signature, prefix optional; missing or bad headers, bad or partial signatures, old and new timestamps refused", () => {
    const now = Date.now()
    const ts = Math.floor(now / 1000)
    const good = new Webhook(secret).sign(msgId, new Date(ts * 1000), payload)
    const headers = { "webhook-id": msgId, "webhook-timestamp": String(ts), "webhook-signature": good }
    const ok = (h: Record<string, string>, s = secret) => Either.isRight(WebhookSignature.verify(payload, h, s, { now }))
    const reason = (h: Record<string, string>) => {
      const r = WebhookSignature.verify(payload, h, secret, { now })
      return Either.isLeft(r) ? r.left.reason : undefined
    }
    assert.isTrue(ok(headers))
    assert.isTrue(ok(headers, secret.slice("whsec_".length)))
    assert.deepStrictEqual(Either.getOrThrow(WebhookSignature.verify(payload, headers, secret, { now })), { test: 2432232314 })
    const junk = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    assert.isTrue(ok({ ...headers, "webhook-signature": [junk, "v2," + junk.slice(3), good, junk].join(" ") }))
    const { "webhook-id": _i, ...noId } = headers
    const { "webhook-timestamp": _t, ...noTimestamp } = headers
    const { "webhook-signature": _s, ...noSignature } = headers
    assert.strictEqual(reason(noId), "MissingHeaders")
    assert.strictEqual(reason(noTimestamp), "MissingHeaders")
    assert.strictEqual(reason(noSignature), "MissingHeaders")
    assert.strictEqual(reason({ ...headers, "webhook-timestamp": "hello" }), "InvalidTimestamp")
    assert.strictEqual(reason({ ...headers, "webhook-signature": "v1,dawfeoifkpqwoekfpqoekf" }), "InvalidSignature")
    assert.strictEqual(reason({ ...headers, "webhook-signature": good.slice(0, 8) }), "InvalidSignature")
    assert.strictEqual(reason({ ...headers, "webhook-signature": "v1," }), "InvalidSignature")
    const at = (seconds: number) => new Webhook(secret).sign(msgId, new Date(seconds * 1000), payload)
    const old = ts - 301
    const young = ts + 301
    assert.strictEqual(reason({ ...headers, "webhook-timestamp": String(old), "webhook-signature": at(old) }), "TimestampOutOfTolerance")
    assert.strictEqual(reason({ ...headers, "webhook-timestamp": String(young), "webhook-signature": at(young) }), "TimestampOutOfTolerance")
    // A body changed in transit no longer matches.
    assert.isTrue(Either.isLeft(WebhookSignature.verify("{\"test\": 2432232315}", headers, secret, { now })))
  })
})
