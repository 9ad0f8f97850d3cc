/**
 * `npm run bench:upload`: what one 5 MiB receipt upload costs in memory, measured in process
 * through the fetch handler on the in-memory store. Reports the peak of heap + external
 * memory above the idle baseline while each upload runs, as a multiple of the file's size
 * (the file itself is stored in memory too, so the floor is about 1x). Not a test.
 */
import { basic, demoKey } from "@tender/test-support"
import { Seed, Tender } from "@tender/core"
import { TenderHttp } from "@tender/http"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const root = resolve(import.meta.dirname, "..")
const seed = await Effect.runPromise(Seed.decode(JSON.parse(readFileSync(resolve(root, "examples/server/seed.json"), "utf8"))))
const { dispose, handler } = TenderHttp.toWebHandler(Tender.layerMemory({ seed, hostedCheckout: { baseUrl: "http://127.0.0.1", secret: "bench" } }))
const auth = basic(demoKey)
const size = 5 * 1024 * 1024
const file = new Uint8Array(size)
file.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
for (let i = 8; i < size; i++) file[i] = (i * 31) & 0xff

const used = () => {
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}
const mib = (n: number) => (n / 1024 / 1024).toFixed(1)

const peaks: Array<number> = []
for (let i = 0; i < 8; i++) {
  const form = new FormData()
  form.append("file", new Blob([file], { type: "image/png" }), "receipt.png")
  const request = new Request("http://127.0.0.1/assets", {
    method: "POST",
    headers: { authorization: auth, "idempotency-key": crypto.randomUUID() },
    body: form
  })
  gc()
  const base = used()
  let peak = base
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 1)
  const res = await handler(request)
  await res.text()
  peak = Math.max(peak, used())
  clearInterval(sampler)
  if (res.status !== 201) throw new Error(`upload answered ${res.status}`)
  peaks.push(peak - base)
}
await dispose()
const sorted = [...peaks].sort((a, b) => a - b)
const median = sorted[Math.floor(sorted.length / 2)]!
process.stdout.write(
  `5 MiB upload, ${peaks.length} runs: median peak ${mib(median)} MiB above idle (${(median / size).toFixed(2)}x the file), ` +
    `max ${mib(sorted[sorted.length - 1]!)} MiB. Node ${process.version}.\n`
)
