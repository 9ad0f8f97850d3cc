/**
 * Tender as a Nest module (docs/embedding.md, "NestJS"): `createTender` behind the `TENDER`
 * injection token, `tender.close()` on `onApplicationShutdown`, and the `TenderError` filter for
 * every controller of the app.
 */
import { type DynamicModule, Inject, Module, type ModuleMetadata, type OnApplicationShutdown } from "@nestjs/common"
import { APP_FILTER } from "@nestjs/core"
import { createTender, type TenderInstance, type TenderOptions } from "@tender/server"
import { TenderErrorFilter } from "./tender-error.filter.js"

/** The injection token of the started Tender: `@Inject(TENDER) tender: TenderInstance`. */
export const TENDER = Symbol("TenderInstance")

const TENDER_OPTIONS = Symbol("TenderOptions")

/** `forRootAsync`'s options, as Nest's own modules take theirs (`TypeOrmModule.forRootAsync`). */
export interface TenderModuleAsyncOptions {
  readonly imports?: ModuleMetadata["imports"]
  /** Tokens whose instances `useFactory` gets, in order (a pool, a config service). */
  readonly inject?: Array<string | symbol | Function>
  readonly useFactory: (...args: Array<any>) => TenderOptions | Promise<TenderOptions>
}

@Module({})
export class TenderModule implements OnApplicationShutdown {
  // Tokens, not types, everywhere: esbuild (tsx, Vitest) emits no decorator metadata.
  constructor(@Inject(TENDER) private readonly tender: TenderInstance) {}

  /** Tender on `options` as they are (a pool made and ended elsewhere). */
  static forRoot(options: TenderOptions): DynamicModule {
    return TenderModule.forRootAsync({ useFactory: () => options })
  }

  /**
   * Tender on options built from other providers. A module in `imports` (the app's pool) is
   * shut down after this one, so Tender closes before the pool it borrows ends.
   */
  static forRootAsync(options: TenderModuleAsyncOptions): DynamicModule {
    return {
      module: TenderModule,
      imports: options.imports ?? [],
      providers: [
        { provide: TENDER_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory },
        // Resolves once storage is migrated, the seed applied and the workers run: before Nest listens.
        { provide: TENDER, inject: [TENDER_OPTIONS], useFactory: (tenderOptions: TenderOptions) => createTender(tenderOptions) },
        { provide: APP_FILTER, useClass: TenderErrorFilter }
      ],
      exports: [TENDER]
    }
  }

  /** After Nest's server stopped taking requests (`app.close()`, or a signal with `enableShutdownHooks`). */
  onApplicationShutdown(): Promise<void> {
    return this.tender.close()
  }
}
