/**
 * Real headless Chromium for the hosted checkout tests: Debian's `chromium` package driven by
 * `playwright-core` (never a browser download), one browser process per test file and a fresh
 * context (its own cookies, storage and cache) per launch, screenshots of each step, and axe-core
 * run inside the page. Not a test file.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core"
import { chromium } from "playwright-core"

export const executablePath = "/usr/bin/chromium"

/** Why the browser tests cannot run here, if they cannot (outside CI they then skip, saying so). */
export const unavailable = existsSync(executablePath)
  ? undefined
  : `${executablePath} is missing: install Debian's chromium package (apt-get install -y chromium); .ci/run does`

/** Where the screenshots of each step go (not committed: see .gitignore). */
export const screenshotDir = resolve(import.meta.dirname, "../../../../test-results/hosted-checkout")

const args = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** The file's one Chromium, started by `startBrowser` or the first `launch`; `closeBrowser` (the file's `afterAll`) stops it. */
let browser: Promise<Browser> | undefined

/** Start the file's browser (in the file's `beforeAll`, so that no test's time includes it). */
export const startBrowser = (): Promise<Browser> => (browser ??= chromium.launch({ executablePath, headless: true, args }))

/**
 * A fresh browser context with `options` (viewport, locale): nothing of another test's context
 * (cookies, storage, cache) is in it, as in a fresh profile, without the cost of a new browser
 * process per test.
 */
export const launch = async (options: BrowserContextOptions = {}) => {
  const context = await (await startBrowser()).newContext(options)
  return { context, close: () => context.close() }
}

/** Stop the file's browser, if one was started. */
export const closeBrowser = async (): Promise<void> => {
  const started = browser
  browser = undefined
  if (started !== undefined) await (await started).close()
}

/** Every request the context makes, to check none leaves for a third party. */
export const recordRequests = (context: BrowserContext) => {
  const urls: Array<string> = []
  context.on("request", (request) => urls.push(request.url()))
  return urls
}

/** Save a screenshot of the page as `<test>/<step>.png`. */
export const shot = async (page: Page, test: string, step: string) => {
  const dir = join(screenshotDir, test)
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${step}.png`), fullPage: true })
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/**
 * Run axe-core inside the page (evaluated through the DevTools protocol, so the page's CSP
 * does not have to let it in) with the WCAG 2.x A/AA rules and best practices; the violations.
 */
export const axeViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }
    })
    return result.violations.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(" ")).join(", ")})`)
  })
  return violations as Array<string>
}
