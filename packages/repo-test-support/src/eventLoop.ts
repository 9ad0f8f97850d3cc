/**
 * Let the event loop turn once. A Vitest worker reads its main process's answers only when its
 * event loop turns; work that runs in promise jobs or synchronously for long (a fuzzer's loop
 * over the in-memory handler, a property over thousands of runs) keeps it from turning, and the
 * worker's 60 s RPC timer then fails the run ("Timeout calling onTaskUpdate") although every test
 * passed. docs/test-environment.md, "Running the repository's tests".
 */
export const eventLoopTurn = (): Promise<void> => new Promise((resume) => setImmediate(resume))
