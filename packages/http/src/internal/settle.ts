/**
 * An answer whose client is gone still settles (found by the crash fuzzer's leak check;
 * docs/upstream.md, "Answers to a client already gone settle"). `@effect/platform-node` writes a response with `end(body, callback)` and waits,
 * uninterruptibly, for that callback, which Node calls on `finish` only: when the client has
 * reset the connection, `finish` never comes and the request's fiber, its socket, request and
 * response stay in memory for ever (about 5 KB each; 465 of 3,000 aborted requests in the
 * probe). Here `end`'s callback also runs once the response is closed without finishing.
 */
import type { ServerResponse } from "node:http"

type End = (...args: Array<unknown>) => ServerResponse

/** Make every `end(…, callback)` of `response` call back on `close` too, once. */
export const install = (response: ServerResponse): void => {
  const end = response.end.bind(response) as End
  response.end = ((...args: Array<unknown>) => {
    const at = args.findIndex((a) => typeof a === "function")
    if (at < 0) return end(...args)
    const callback = args[at] as () => void
    let called = false
    const once = () => {
      if (called) return
      called = true
      callback()
    }
    args[at] = once
    if (response.destroyed) process.nextTick(once)
    else response.once("close", once)
    return end(...args)
  }) as ServerResponse["end"]
}
