/**
 * What a shared test helper opened for the file that is running (a server, a runtime, a handler),
 * closed after that file's last test by the setup file's `afterAll` (vitestSetup.ts). A helper
 * module is loaded once per worker and serves every file after it (vitest.config.ts), so a hook it
 * registered when loaded would belong to the first file alone.
 */
const pending: Array<() => unknown> = []

/** Close `resource` once the running file's tests are done. */
export const atFileEnd = (close: () => unknown): void => {
  pending.push(close)
}

/** Close, newest first, what the file's helpers opened (the setup file's `afterAll`). */
export const runFileEnd = async (): Promise<void> => {
  for (const close of pending.splice(0).reverse()) await close()
}
