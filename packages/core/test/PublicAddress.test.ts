/**
 * SSRF: which addresses are public (ipaddr.js's ranges), which URL hosts are
 * refused as written, the connect-time check of the addresses a name resolves to, and the
 * delivery client that connects only to the address it checked. Every connection a test
 * makes goes to a server on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { closeServers } from "@tender/repo-test-support"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import { afterAll } from "vitest"
import { DeliveryClient, PublicAddress } from "../src/index.js"

const nonPublic = [
  "::ffff:127.0.0.1",
  "[::ffff:127.0.0.1]",
  "::ffff:7f00:1",
  "::1",
  "[::1]",
  "::",
  "::7f00:1",
  "64:ff9b::a00:1",
  "fe80::1",
  "fc00::1",
  "fd12:3456::1",
  "ff02::1",
  "100.64.0.1",
  "198.18.0.1",
  "169.254.169.254",
  "0.0.0.0",
  "224.0.0.1",
  "255.255.255.255",
  "10.0.0.1",
  "10.255.255.254",
  "172.16.0.1",
  "172.31.255.1",
  "192.168.1.1",
  "127.0.0.1",
  "127.1.2.3",
  "192.0.2.1"
]
const publicAddresses = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "[2606:4700::1111]", "2001:4860:4860::8888"]

describe("SSRF: public and non-public addresses (ipaddr.js ranges)", () => {
  it("every non-public address is refused, IPv4-mapped IPv6 read as the IPv4 it carries", () => {
    for (const address of nonPublic) {
      assert.isFalse(PublicAddress.isPublic(address), address)
      assert.isDefined(PublicAddress.refusedHost(address), address)
    }
    assert.strictEqual(PublicAddress.rangeOf("::ffff:127.0.0.1"), "loopback")
    assert.strictEqual(PublicAddress.rangeOf("198.18.0.1"), "reserved")
    assert.strictEqual(PublicAddress.rangeOf("169.254.169.254"), "linkLocal")
  })

  it("public addresses are accepted", () => {
    for (const address of publicAddresses) {
      assert.isTrue(PublicAddress.isPublic(address), address)
      assert.isUndefined(PublicAddress.refusedHost(address), address)
    }
  })

  it("localhost, localhost. and *.localhost(.) are loopback names; other names wait for connect time", () => {
    for (const host of ["localhost", "localhost.", "LOCALHOST", "localhost..", "api.localhost", "api.localhost."]) {
      assert.strictEqual(PublicAddress.refusedHost(host), `${host} is a loopback name`)
    }
    for (const host of ["hooks.example.com", "169.254.169.254.nip.io", "metadata.google.internal", "localhost.example.com"]) {
      assert.isUndefined(PublicAddress.refusedHost(host), host)
    }
    assert.isUndefined(PublicAddress.rangeOf("hooks.example.com"))
  })
})

const resolver = (table: Record<string, ReadonlyArray<string>>) => {
  const asked: Array<string> = []
  const resolve: PublicAddress.Resolver = async (name) => {
    asked.push(name)
    const found = table[name]
    if (found === undefined) throw Object.assign(new Error(`no ${name}`), { code: "ENOTFOUND" })
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { asked, resolve }
}

describe("SSRF: the connect-time check", () => {
  it("a name that resolves to a non-public address is refused, also when it resolves to a public one beside it", async () => {
    const { resolve } = resolver({
      "evil.example": ["127.0.0.1"],
      "169.254.169.254.nip.io": ["169.254.169.254"],
      "metadata.google.internal": ["169.254.169.254"],
      "mixed.example": ["93.184.216.34", "10.0.0.1"],
      "mapped.example": ["::ffff:10.0.0.1"]
    })
    const refused = async (host: string) => {
      const checked = await PublicAddress.resolvePublic(host, { resolve, check: true })
      return checked._tag === "Refused" ? checked.reason : undefined
    }
    assert.strictEqual(await refused("evil.example"), "refused: evil.example resolves to a non-public address 127.0.0.1 (loopback)")
    assert.strictEqual(await refused("169.254.169.254.nip.io"), "refused: 169.254.169.254.nip.io resolves to a non-public address 169.254.169.254 (linkLocal)")
    assert.strictEqual(
      await refused("metadata.google.internal."),
      "refused: metadata.google.internal resolves to a non-public address 169.254.169.254 (linkLocal)"
    )
    assert.strictEqual(await refused("mixed.example"), "refused: mixed.example resolves to a non-public address 10.0.0.1 (private)")
    assert.strictEqual(await refused("mapped.example"), "refused: mapped.example resolves to a non-public address ::ffff:10.0.0.1 (private)")
    assert.strictEqual(await refused("[::ffff:127.0.0.1]"), "refused: [::ffff:127.0.0.1] is a non-public address (loopback)")
    assert.strictEqual(await refused("localhost."), "refused: localhost. is a loopback name")
    assert.strictEqual(await refused("nowhere.example"), "could not resolve nowhere.example (ENOTFOUND)")
  })

  it("a public name connects to the address it resolved to; unchecked, a private one is taken too", async () => {
    const { resolve } = resolver({ "hooks.example": ["93.184.216.34", "2606:4700::1111"], "dev.example": ["10.0.0.1"] })
    assert.deepStrictEqual(await PublicAddress.resolvePublic("hooks.example", { resolve, check: true }), {
      _tag: "Connect",
      address: "93.184.216.34",
      family: 4
    })
    assert.deepStrictEqual(await PublicAddress.resolvePublic("dev.example", { resolve, check: false }), {
      _tag: "Connect",
      address: "10.0.0.1",
      family: 4
    })
  })
})

/** A receiver on 127.0.0.1 that counts every connection made to it. */
const servers: Array<Server> = []
afterAll(() => closeServers(servers))
const receiver = async () => {
  const seen = { connections: 0, requests: [] as Array<string> }
  const server = createServer((req, res) => {
    seen.requests.push(`${req.method} ${req.headers.host} ${req.url}`)
    req.resume()
    req.on("end", () => {
      // 128 KiB and never the end: only a client that stops reading at its limit answers.
      if (req.url === "/endless") return void res.write(Buffer.alloc(128 * 1024))
      res.statusCode = req.url === "/moved" ? 302 : 200
      if (req.url === "/moved") res.setHeader("location", "/ok")
      res.end("ok")
    })
  })
  server.on("connection", () => seen.connections++)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  servers.push(server)
  const address = server.address()
  return { port: typeof address === "object" && address !== null ? address.port : 0, seen }
}

const request = (url: string, allowPrivateAddresses: boolean) => ({
  url,
  headers: { "content-type": "application/json" },
  body: "{}",
  timeoutMillis: 5_000,
  allowPrivateAddresses
})

describe("SSRF: the delivery client Tender ships", () => {
  it.effect("a live delivery to a name resolving to loopback is refused with its reason, and no connection is made", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(receiver)
      const { resolve } = resolver({ "evil.example": ["127.0.0.1"] })
      const client = (url: string) => DeliveryClient.send(request(url, false), { resolve })
      assert.deepStrictEqual(yield* client(`http://evil.example:${server.port}/ok`), {
        _tag: "NoAnswer",
        reason: "refused: evil.example resolves to a non-public address 127.0.0.1 (loopback)"
      })
      assert.deepStrictEqual(yield* client(`http://127.0.0.1:${server.port}/ok`), {
        _tag: "NoAnswer",
        reason: "refused: 127.0.0.1 is a non-public address (loopback)"
      })
      assert.deepStrictEqual(yield* client(`http://[::ffff:7f00:1]:${server.port}/ok`), {
        _tag: "NoAnswer",
        reason: "refused: [::ffff:7f00:1] is a non-public address (loopback)"
      })
      assert.strictEqual(server.seen.connections, 0)
    }))

  it.effect("the connection goes to the address resolved once and checked, never to a second resolution (DNS rebinding)", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(receiver)
      // Answers 127.0.0.1 first, then an address nothing listens on: a second resolution would miss.
      const answers = ["127.0.0.1", "127.0.0.2"]
      const asked: Array<string> = []
      const resolve: PublicAddress.Resolver = async (name) => {
        asked.push(name)
        return [{ address: answers[asked.length - 1] ?? "127.0.0.2", family: 4 }]
      }
      const response = yield* DeliveryClient.send(request(`http://evil.example:${server.port}/ok`, true), { resolve })
      assert.deepStrictEqual(response, { _tag: "Answered", status: 200 })
      assert.deepStrictEqual(asked, ["evil.example"])
      assert.deepStrictEqual(server.seen.requests, [`POST evil.example:${server.port} /ok`])
    }))

  it.effect("a redirect is not followed: the 3xx is the answer and its target hears nothing", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(receiver)
      const response = yield* DeliveryClient.send(request(`http://127.0.0.1:${server.port}/moved`, true))
      assert.deepStrictEqual(response, { _tag: "Answered", status: 302 })
      assert.deepStrictEqual(server.seen.requests, [`POST 127.0.0.1:${server.port} /moved`])
    }))

  it.effect("D7 at most 64 KiB of an answer is read: a receiver that never ends its answer still gets its status recorded", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(receiver)
      const response = yield* DeliveryClient.send({ ...request(`http://127.0.0.1:${server.port}/endless`, true), timeoutMillis: 60_000 })
      assert.deepStrictEqual(response, { _tag: "Answered", status: 200 })
    }))

  it.effect("D7 a request Node refuses to build is a failed attempt, not a defect", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(receiver)
      const response = yield* DeliveryClient.send({
        ...request(`http://127.0.0.1:${server.port}/ok`, true),
        headers: { "x-bad": "a\nb" }
      })
      assert.deepStrictEqual(response, { _tag: "NoAnswer", reason: "refused: the request could not be built" })
      assert.strictEqual(server.seen.connections, 0)
    }))
})
