/**
 * The hosted checkout's nonce cookie (the browser secret its form tokens are bound to): scoped
 * to the path the API is mounted at as the browser sees it (the public base URL's path, which
 * `Mount.fromPublicUrl` makes the mount's prefix), so the host's other pages never receive it;
 * `Secure` whenever that URL is https. Read from Set-Cookie over real HTTP.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { hosted } from "@tender/repo-test-support"
import { keys } from "../../../core/test/fixtures.js"
import { app, call } from "../harness.js"
import { createIntent, start, startMounted, type TestServer } from "./server.js"

const servers: Array<TestServer> = []
afterAll(() => Promise.all(servers.map((s) => s.close())))

/** The attributes of the page's Set-Cookie, lower-cased names to values ("" for a flag). */
const cookieOf = (header: string | null) => {
  assert.isString(header, "the page sets its nonce cookie")
  const [pair = "", ...attributes] = header!.split(";").map((p) => p.trim())
  assert.match(pair, /^tender_checkout=[A-Za-z0-9_-]{22,64}$/)
  return new Map(attributes.map((a) => [a.split("=")[0]!.toLowerCase(), a.slice(a.indexOf("=") + 1)]))
}

const pageCookie = async (server: TestServer) => {
  const intent = await createIntent(server, {})
  const res = await fetch(intent.next_action.url, { redirect: "manual" })
  assert.strictEqual(res.status, 200)
  await res.arrayBuffer()
  return cookieOf(res.headers.get("set-cookie"))
}

describe("hosted checkout: the nonce cookie's scope", () => {
  it("at the root over http: Path=/, HttpOnly, SameSite=Strict, not Secure", async () => {
    const server = await start()
    servers.push(server)
    const cookie = await pageCookie(server)
    assert.strictEqual(cookie.get("path"), "/")
    assert.isTrue(cookie.has("httponly"))
    assert.strictEqual(cookie.get("samesite"), "Strict")
    assert.isFalse(cookie.has("secure"))
  })

  it("mounted under /shop/pay: Path=/shop/pay/, so the host's own pages never get it", async () => {
    const server = await startMounted("/shop/pay")
    servers.push(server)
    const cookie = await pageCookie(server)
    assert.strictEqual(cookie.get("path"), "/shop/pay/")
    assert.isFalse(cookie.has("secure"))
  })

  it("a public URL on https: the cookie is Secure", async () => {
    // The fixtures' hosted checkout is at https://pay.example.test.
    const handler = app()
    const created = await call(handler, "POST", "/payment_intents", {
      key: keys.demoTest,
      body: hosted
    })
    assert.strictEqual(created.status, 201, created.text)
    const url = new URL(created.json.next_action.url)
    assert.strictEqual(url.protocol, "https:")
    const res = await handler(new Request(`http://localhost${url.pathname}${url.search}`))
    assert.strictEqual(res.status, 200)
    await res.arrayBuffer()
    const cookie = cookieOf(res.headers.get("set-cookie"))
    assert.isTrue(cookie.has("secure"))
    assert.strictEqual(cookie.get("path"), "/")
  })
})
