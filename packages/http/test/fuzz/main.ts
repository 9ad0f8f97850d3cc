/**
 * `npm run fuzz`: the long crash-fuzz run, over real sockets against Tender in a
 * child process. Flags: `--requests N` (default 100000), `--concurrency N` (default 24),
 * `--seed N` (default: the time; printed, so a run can be repeated). Prints the summary table
 * and every failure; exits 1 on any crash, unexpected 5xx, non-D1 error, unexpected drop, hang,
 * or memory not given back.
 */
import { health, problems, summary } from "./check.js"
import { run, setup, startTarget } from "./engine.js"

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  const value = i < 0 ? fallback : Number(process.argv[i + 1])
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`)
  return value
}

const total = flag("requests", 100_000)
const concurrency = flag("concurrency", 24)
const seed = flag("seed", Date.now() % 1_000_000_000)

const target = await startTarget()
const known = await setup(target.port)
const before = await target.memory()
process.stdout.write(`crash fuzz: ${total} requests, concurrency ${concurrency}, seed ${seed}, target pid ${target.child.pid} on port ${target.port}\n`)
const started = Date.now()
const tally = await run(target, known, {
  total,
  concurrency,
  seed,
  onProgress: (n, failures) => void (n % 10_000 === 0 && process.stdout.write(`  ${n} requests, ${failures} failures\n`))
})
const h = await health(target, before, tally)
const found = problems(tally, h)
process.stdout.write(summary(tally, h, (Date.now() - started) / 1000) + "\n")
if (found.length > 0) process.stdout.write(`\nfailures (${found.length}):\n` + found.map((p) => `  ${p}`).join("\n") + "\n")
const stderr = target.stderr().trim()
if (stderr !== "") process.stdout.write(`\ntarget stderr (last lines):\n${stderr.split("\n").slice(-20).join("\n")}\n`)
await target.stop()
process.exitCode = found.length > 0 ? 1 : 0
