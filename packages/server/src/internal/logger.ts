/**
 * The host's logger as Effect's logger: Tender's log lines (warnings, the causes of 5xx
 * answers, worker faults) go to any object with `info`, `warn` and `error` methods, called as
 * pino's are, `(fields, message)`. `console` fits too.
 */
import { Cause, HashMap, Layer, Logger, LogLevel } from "effect"

/** What Tender logs to: pino, console, or any object with these methods. @since 0.1.0 @category models */
export interface HostLogger {
  readonly info: (fields: Record<string, unknown>, message: string) => void
  readonly warn: (fields: Record<string, unknown>, message: string) => void
  readonly error: (fields: Record<string, unknown>, message: string) => void
  readonly debug?: ((fields: Record<string, unknown>, message: string) => void) | undefined
}

const methodOf = (logger: HostLogger, level: LogLevel.LogLevel) =>
  LogLevel.greaterThanEqual(level, LogLevel.Error)
    ? logger.error
    : LogLevel.greaterThanEqual(level, LogLevel.Warning)
    ? logger.warn
    : LogLevel.greaterThanEqual(level, LogLevel.Info)
    ? logger.info
    : logger.debug

/** Replaces Effect's default logger with the host's, for every fiber of the runtime it is built into. */
export const layer = (logger: HostLogger): Layer.Layer<never> =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, cause, logLevel, message }) => {
      const method = methodOf(logger, logLevel)
      if (method === undefined) return
      const fields: Record<string, unknown> = Object.fromEntries(HashMap.toEntries(annotations))
      if (!Cause.isEmpty(cause)) fields["cause"] = Cause.pretty(cause)
      const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
      // An error logged beside the text (`Effect.logError("… failed", error)`) is given whole as
      // `err`, pino's key for errors, so its cause chain (the driver's error) reaches the host.
      const err = parts.find((p) => typeof p === "object" && p !== null)
      if (err !== undefined) fields["err"] = err
      // A method called off its object loses `this` (pino's methods need it).
      method.call(logger, fields, parts.map(String).join(" "))
    })
  )
