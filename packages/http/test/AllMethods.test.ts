/**
 * D1 every HTTP method on every mount: the demo's Effect server, the `node:http` listener, Express
 * and Fastify. A method a fetch `Request` cannot carry (TRACE, TRACK) was a 500 through the glue
 * that builds one; it is the router's 405 (or 404) like any other method a path lacks.
 */
import { describe, it } from "@effect/vitest"
import { everyMethodAnswered } from "./allMethods.js"
import { hostMounts } from "./mounts.js"

const { mounts } = hostMounts()

describe("D1 every HTTP method on every mount", () => {
  for (const [name, start] of Object.entries(mounts)) {
    it(`D1 ${name}: every method Node accepts on every kind of path -> answered, never a 5xx, Tender's 4xx in the D1 shape`, async () => {
      await everyMethodAnswered(await start())
    }, 120_000)
  }
})
