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

/**
 * Close, newest first, what the file's helpers opened (the setup file's `afterAll`): every one of
 * them, even after one fails (what is left open would stay open for every later file of the
 * worker), then fail with what failed.
 */
export const runFileEnd = async (): Promise<void> => {
  const failures: Array<unknown> = []
  for (const close of pending.splice(0).reverse()) {
    try {
      await close()
    } catch (e) {
      failures.push(e)
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} of the file's helpers failed to close`)
}
