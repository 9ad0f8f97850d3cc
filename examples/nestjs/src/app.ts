/**
 * A Nest app with Tender mounted under /payments (docs/embedding.md, "NestJS"). Tender reads its
 * request bodies itself, byte for byte (D5 fingerprints, D11 signatures), so it must run before
 * any body parser. Nest registers its own parsers, and `app.useBodyParser`'s, ahead of every
 * module's middleware (`consumer.apply(…)`): so Nest's parser is off, Tender is mounted with
 * `app.use`, and the parser the app's own routes need comes after it.
 */
import { type DynamicModule, type NestApplicationOptions } from "@nestjs/common"
import { NestFactory } from "@nestjs/core"
import type { NestExpressApplication } from "@nestjs/platform-express"
import type { TenderInstance, TenderOptions } from "@tender/server"
import { AppModule } from "./app.module.js"
import { TENDER, TenderModule } from "./tender.module.js"

/** The app on `tender` (a `TenderModule`), not yet listening; `nest` is NestFactory's options (its logger). */
export const createApp = async (tender: DynamicModule, nest: NestApplicationOptions = {}) => {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.with(tender), {
    ...nest,
    bodyParser: false,
    // createTender's rejection (database down, a bad option) reaches the caller, in its own
    // words, instead of Nest aborting the process.
    abortOnError: false
  })
  app.use(app.get<TenderInstance>(TENDER).express())
  app.useBodyParser("json")
  app.useBodyParser("urlencoded", { extended: true })
  return app
}

/** The app on createTender's `options` as they are (the tests', on their own pool). */
export const makeApp = async (options: TenderOptions, nest: NestApplicationOptions = {}) => {
  const app = await createApp(TenderModule.forRoot(options), nest)
  return { app, tender: app.get<TenderInstance>(TENDER) }
}
