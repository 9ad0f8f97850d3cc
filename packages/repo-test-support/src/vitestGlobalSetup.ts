/**
 * Vitest's global setup for `npm test` (vitest.config.ts): the run's own PostgreSQL database
 * (`runDatabase.ts`), created before the first file and checked and dropped after the last (a
 * table, view, sequence or function left in it fails the run, naming each one); and the demo
 * server's bundle (`demoBundle.ts`), built while the first files run.
 */
import { buildDemoBundle, removeDemoBundle } from "./demoBundle.js"
import { createRunDatabase, dropRunDatabase } from "./runDatabase.js"

let bundling: Promise<void> = Promise.resolve()

export const setup = async (): Promise<void> => {
  // Not awaited: a demo started before it is built starts through tsx (demoEntry).
  bundling = buildDemoBundle()
  await createRunDatabase()
}

export const teardown = async (): Promise<void> => {
  await bundling
  removeDemoBundle()
  const left = await dropRunDatabase()
  if (left.length > 0) {
    process.stderr.write(`npm test: the tests left ${left.length} object(s) behind in their database:\n${left.map((l) => `  ${l}`).join("\n")}\n`)
    process.exitCode = 1
  }
}
