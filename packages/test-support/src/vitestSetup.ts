/**
 * Vitest's setup file for every project of `npm test` (vitest.config.ts), run before each test
 * file. Files share their worker's loaded modules, and @effect/vitest 0.x's `layer(…)` writes its
 * own `effect`, `scoped`, `prop`, `flakyTest` and `layer` onto the one `it` object of Vitest that
 * every file imports: a file after one that used `layer(…)` would run its `it.effect` tests in
 * that layer's runtime, without the TestClock. Each file starts from @effect/vitest's own methods
 * again (docs/upstream.md, "@effect/vitest: `layer` rewrites the shared `it`").
 */
import { effect, flakyTest, it, layer, prop, scoped } from "@effect/vitest"

Object.assign(it, { effect, scoped, prop, flakyTest, layer })
