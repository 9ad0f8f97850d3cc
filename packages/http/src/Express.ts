/**
 * Express glue (docs/embedding.md): `app.use(Express.middleware(tender))` before any body
 * parser. Tender serves its own paths (under its prefix, read from `originalUrl`, so
 * `app.use("/payments", …)` and `app.use(…)` both work) and calls `next()` for every other
 * request. Express is not a dependency: Express's requests are Node's `IncomingMessage`.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import * as NodeHttp from "./NodeHttp.js"
import type { WebHandler } from "./TenderHttp.js"

/** What a body parser leaves on the request once it consumed the body. */
const consumedBody = (req: IncomingMessage) => req.readableEnded && (req as IncomingMessage & { body?: unknown }).body !== undefined

/**
 * What to do when a body parser ran first, for each framework that puts one before the
 * middleware: Express (the host's own `express.json()`) and NestJS (its built-in parser,
 * on unless `bodyParser: false`; docs/embedding.md, "NestJS").
 */
const bodyParsedMessage = "tender: a body parser read the request body before Tender, which reads it byte for byte. " +
  "Express: app.use(tender.express()) (or Express.middleware(tender)) before express.json(). " +
  "NestJS: NestFactory.create(AppModule, { bodyParser: false }), then app.use(tender.express()) in main.ts before app.useBodyParser(\"json\")"

/**
 * Express middleware for Tender's paths. A body parser mounted before it has already read
 * the body Tender needs byte for byte (idempotency fingerprints, D5): that request is passed
 * to `next(error)` naming the fix, never answered with a misleading 400.
 *
 * @since 0.1.0
 */
export const middleware = (tender: WebHandler) => {
  const serve = NodeHttp.middleware(tender)
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    if (consumedBody(req) && tender.owns((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/")) {
      return next(new Error(bodyParsedMessage))
    }
    serve(req, res, next)
  }
}
