/**
 * Vitest's setup file for every project of `npm test` (vitest.config.ts), run before each test
 * file. Files share their worker's loaded modules, so each file starts clean here:
 *
 * - @effect/vitest 0.x's `layer(…)` writes its own `effect`, `scoped`, `prop`, `flakyTest` and
 *   `layer` onto the one `it` object of Vitest that every file imports: a file after one that used
 *   `layer(…)` would run its `it.effect` tests in that layer's runtime, without the TestClock.
 *   @effect/vitest's own methods go back on `it` (docs/upstream.md, "@effect/vitest: `layer`
 *   rewrites the shared `it`").
 * - What the shared helpers opened for the file is closed after its last test (`atFileEnd`).
 */
import { afterAll, effect, flakyTest, it, layer, prop, scoped } from "@effect/vitest"
import { runFileEnd } from "./fileEnd.js"

Object.assign(it, { effect, scoped, prop, flakyTest, layer })

afterAll(runFileEnd)
