/**
 * Preloaded (`node --import ./bench/http/ops-count.mjs …`) by `npm run bench:ops` (bench/http/ops.ts): counts
 * the steps Effect's fiber runtime takes, one per instruction its run loop evaluates, by kind.
 * SIGUSR2 writes the counts since the last signal as one JSON line on stderr and starts again.
 * A count is the same on a quiet machine and a loaded one, where times are not.
 */
const runtime = await import(new URL("./internal/fiberRuntime.js", import.meta.resolve("effect")).href)
const proto = runtime.FiberRuntime.prototype
const counts = new Map()
// The run loop dispatches each instruction to the method named by its opcode (`this[cur._op](cur)`).
for (const name of Object.getOwnPropertyNames(proto)) {
  const step = proto[name]
  if (!/^[A-Z][A-Za-z]+$/.test(name) || typeof step !== "function") continue
  proto[name] = function(op) {
    counts.set(name, (counts.get(name) ?? 0) + 1)
    return step.call(this, op)
  }
}
process.on("SIGUSR2", () => {
  process.stderr.write(`ops-count ${JSON.stringify(Object.fromEntries(counts))}\n`)
  counts.clear()
})
