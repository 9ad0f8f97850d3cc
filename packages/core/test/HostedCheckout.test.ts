import { assert, describe, it } from "@effect/vitest"
import { HostedCheckout } from "../src/index.js"

const id = "dord_0123456789abcdefABCDEF"
const other = "dord_0123456789abcdefABCDEG"
const now = Date.UTC(2026, 10, 23, 10, 0, 0)
const options = { baseUrl: "https://pay.example.test/tender/", secret: "current-secret" }

const parts = (url: string) => {
  const u = new URL(url)
  return { path: u.pathname, expires: Number(u.searchParams.get("expires")), signature: u.searchParams.get("signature")! }
}

describe("hosted checkout links (2.3, 4.1.1)", () => {
  it("2.3 a link is signed over the intent id and its expiry, under the configured base URL", () => {
    const hosted = HostedCheckout.make(options)
    const { expiresAt, url } = hosted.urlFor(id, now)
    assert.strictEqual(expiresAt, now + 60 * 60 * 1000)
    const p = parts(url)
    assert.strictEqual(p.path, `/tender/checkout/${id}`)
    assert.strictEqual(hosted.check(id, p.expires, p.signature, now), "valid")
    assert.strictEqual(hosted.pageUrl(id, "/pay"), `https://pay.example.test/tender/checkout/${id}/pay`)
  })

  it("2.3 a link cannot be forged, moved to another intent, extended or used after it expires", () => {
    const hosted = HostedCheckout.make(options)
    const p = parts(hosted.urlFor(id, now).url)
    // Another intent, a later expiry, a changed signature: invalid; the genuine link after its expiry: expired.
    assert.strictEqual(hosted.check(other, p.expires, p.signature, now), "invalid")
    assert.strictEqual(hosted.check(id, p.expires + 1, p.signature, now), "invalid")
    assert.strictEqual(hosted.check(id, p.expires, p.signature.slice(0, -1) + (p.signature.endsWith("A") ? "B" : "A"), now), "invalid")
    assert.strictEqual(hosted.check(id, p.expires, "", now), "invalid")
    assert.strictEqual(hosted.check(id, Number.NaN, p.signature, now), "invalid")
    assert.strictEqual(hosted.check(id, p.expires, p.signature, p.expires), "expired")
    // A key that is not ours signs nothing we accept.
    const forger = HostedCheckout.make({ ...options, secret: "guessed" })
    const f = parts(forger.urlFor(id, now).url)
    assert.strictEqual(hosted.check(id, f.expires, f.signature, now), "invalid")
  })

  it("2.3 rotating the signing key keeps links signed with the previous key valid until they expire", () => {
    const before = HostedCheckout.make({ ...options, secret: "old-secret" })
    const old = parts(before.urlFor(id, now).url)
    const rotated = HostedCheckout.make({ ...options, secret: "new-secret", previousSecrets: ["old-secret"] })
    assert.strictEqual(rotated.check(id, old.expires, old.signature, now + 1000), "valid")
    assert.strictEqual(rotated.check(id, old.expires, old.signature, old.expires), "expired")
    // New links use the new key only: the old configuration does not accept them.
    const fresh = parts(rotated.urlFor(id, now).url)
    assert.strictEqual(before.check(id, fresh.expires, fresh.signature, now), "invalid")
    // Once the previous key is dropped, its links are invalid.
    const dropped = HostedCheckout.make({ ...options, secret: "new-secret" })
    assert.strictEqual(dropped.check(id, old.expires, old.signature, now), "invalid")
  })

  it("CSRF: a form token is bound to the link and the browser's nonce", () => {
    const hosted = HostedCheckout.make(options)
    const nonce = "n".repeat(32)
    const token = hosted.formToken(id, now, nonce)
    assert.isTrue(hosted.checkFormToken(id, now, nonce, token))
    assert.isFalse(hosted.checkFormToken(id, now, "m".repeat(32), token))
    assert.isFalse(hosted.checkFormToken(other, now, nonce, token))
    assert.isFalse(hosted.checkFormToken(id, now + 1, nonce, token))
    assert.isFalse(hosted.checkFormToken(id, now, "", hosted.formToken(id, now, "")))
    assert.isFalse(HostedCheckout.make({ ...options, secret: "other" }).checkFormToken(id, now, nonce, token))
  })
})
