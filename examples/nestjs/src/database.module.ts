/**
 * The app's own `pg.Pool`, ended when the app shuts down. `TenderModule.forRootAsync` imports
 * this module, so Nest shuts Tender down first and this pool after (src/main.ts).
 */
import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from "@nestjs/common"
import pg from "pg"

/** The injection token of the app's pool. */
export const PG_POOL = Symbol("PgPool")

@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  static forRoot(config: pg.PoolConfig): DynamicModule {
    return { module: DatabaseModule, providers: [{ provide: PG_POOL, useFactory: () => new pg.Pool(config) }], exports: [PG_POOL] }
  }

  onApplicationShutdown(): Promise<void> {
    return this.pool.end()
  }
}
