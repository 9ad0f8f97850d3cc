/**
 * Methods a fetch `Request` cannot carry (CONNECT, TRACE, TRACK: the Fetch standard's forbidden
 * methods, refused by `new Request` with a TypeError), which Node's parser accepts. The
 * `node:http` glue answers them itself, as Tender's router answers any method a path lacks: the
 * D1 405 with `Allow` on one of Tender's paths, the D1 404 elsewhere; never a 500.
 */
import { Ids } from "@tender/core"
import type { ServerResponse } from "node:http"
import * as Routes from "./routes.js"

/** The Fetch standard's forbidden methods, matched case-insensitively as `new Request` does. */
export const refusedByFetch = (method: string): boolean => /^(connect|trace|track)$/i.test(method)

/** Each web handler's route table, for the glue that cannot build a `Request` to ask it. */
const tables = new WeakMap<object, Routes.Table>()

/** Remember `handler`'s routes. */
export const register = (handler: object, table: Routes.Table): void => {
  tables.set(handler, table)
}

/** Answer `method` on `url`, a method no route takes, in the D1 shape: 405 with `Allow` on a path of `handler`'s, else 404. */
export const answer = (handler: object, method: string, url: string, res: ServerResponse): void => {
  const path = Routes.pathOf(url)
  const table = tables.get(handler)
  const methods = table === undefined ? [] : Routes.methodsOf(table, path)
  const requestId = Ids.prefixes.request + Ids.randomBase62()
  const [status, code, message] = methods.length === 0
    ? [404, "resource_not_found", `Unknown route ${method} ${path}.`] as const
    : [405, "method_not_allowed", `${method} is not allowed on ${path}; allowed: ${methods.join(", ")}.`] as const
  const body = JSON.stringify({ error: { code, message, request_id: requestId } })
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "request-id": requestId,
    ...(methods.length === 0 ? {} : { allow: methods.join(", ") }),
    // Whatever body such a request carries is never read: it must not stand before the next request.
    connection: "close"
  })
  res.end(body)
}
