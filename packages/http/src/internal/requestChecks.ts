/**
 * The checks of a request's text before anything decodes it (D1): how deep a JSON body nests,
 * what its `Content-Type` says of its charset, and whether its query is one the route takes.
 */
import { Errors } from "@tender/core"
import type * as Routes from "./routes.js"

/**
 * The deepest nesting of arrays and objects a JSON body may have. No valid request nests
 * beyond three levels; Effect's decoder formats a rejected value recursively, so a body
 * nested thousands deep would overflow the stack there (a 500) instead of getting its 400.
 */
export const maxJsonDepth = 64

/** Whether `text` nests arrays and objects deeper than `max` (strings are skipped). */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/**
 * What is wrong with the query of an authenticated request, if anything (D1: an unknown query
 * value is 400). A route that declares no query parameters takes none, as a list refuses a
 * parameter it does not know; and a name or value whose percent-escapes are not UTF-8 is refused,
 * not read with U+FFFD in its place (a `merchant_reference` filter would match nothing).
 */
export const queryProblem = (url: string, route: Routes.Route | undefined): Errors.ValidationFailed | undefined => {
  const at = url.indexOf("?")
  if (at < 0) return undefined
  for (const pair of url.slice(at + 1).split("&")) {
    if (pair === "") continue
    const eq = pair.indexOf("=")
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const name = decodedQueryPart(rawName)
    if (name === undefined) return Errors.ValidationFailed.at("query", "A query parameter name is not a valid percent-encoded UTF-8 string.")
    if (name === "") continue
    if (route !== undefined && !route.query) return Errors.ValidationFailed.at(name, `${name} is not a known parameter`)
    if (eq >= 0 && decodedQueryPart(pair.slice(eq + 1)) === undefined) {
      return Errors.ValidationFailed.at(name, `${name} is not a valid percent-encoded UTF-8 string.`)
    }
  }
  return undefined
}

/** A query name or value decoded as forms are (`+` a space), or undefined when its escapes are not UTF-8. */
const decodedQueryPart = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.includes("+") ? text.replace(/\+/g, " ") : text)
  } catch {
    return undefined
  }
}

/**
 * The `charset` parameter of a `Content-Type`, lowercased and unquoted; undefined when absent.
 * A body is UTF-8 (RFC 8259 8.1): any other declared charset is refused, never reinterpreted.
 */
export const charsetOf = (type: string): string | undefined => {
  for (const parameter of type.split(";").slice(1)) {
    const eq = parameter.indexOf("=")
    const name = (eq < 0 ? parameter : parameter.slice(0, eq)).trim().toLowerCase()
    if (name !== "charset") continue
    return eq < 0 ? "" : parameter.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").trim().toLowerCase()
  }
  return undefined
}
