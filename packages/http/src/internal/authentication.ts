/**
 * `Authentication` (5, D2): the caller from the raw `Authorization` header, then the query of an
 * authenticated request (D1).
 */
import { HttpServerRequest } from "@effect/platform"
import { Authentication as CoreAuthentication, Merchants } from "@tender/core"
import { Effect, Layer } from "effect"
import { Authentication } from "../Api.js"
import * as Current from "./current.js"
import * as Observe from "./observe.js"
import { queryProblem } from "./requestChecks.js"

/** The caller, from the raw `Authorization` header (D2: see `Authentication` for why not the decoded credentials); then the query (D1). */
export const authenticateWith = (merchants: Merchants.Merchants["Type"]) => {
  const principalOf = CoreAuthentication.authenticator(merchants)
  return Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) =>
      Effect.flatMap(CoreAuthentication.parseBasic(request.headers["authorization"]), principalOf).pipe(
        Effect.tap((principal) => Current.sawMerchant(principal.merchant.id)),
        Effect.tap(() => {
          if (!request.originalUrl.includes("?")) return Effect.void
          return Effect.flatMap(Observe.currentResolved, (resolved) => {
            const problem = queryProblem(request.originalUrl, resolved?.route)
            return problem === undefined ? Effect.void : Effect.fail(problem)
          })
        })
      )
  )
}

/**
 * `Authentication`: HttpApi's Basic decoding hands over empty credentials for a missing or
 * undecodable header, ignores the scheme and breaks on a `:` in the secret, so the raw header
 * is read and parsed by core (D2: `authentication_required` vs `invalid_api_key`). The
 * directory is taken once, here, rather than provided to every request.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Merchants.Merchants, (merchants) => {
    const authenticate = authenticateWith(merchants)
    return Authentication.of({ basicAuth: () => authenticate })
  })
)
