/** The app: its own controllers, and Tender's module as the caller configures it (src/app.ts, src/main.ts). */
import { type DynamicModule, Module } from "@nestjs/common"
import { AppController } from "./app.controller.js"
import { PayoutsController } from "./payouts.controller.js"

@Module({ controllers: [AppController, PayoutsController] })
export class AppModule {
  /** The app with `tender`: `TenderModule.forRoot(options)` or `TenderModule.forRootAsync({ … })`. */
  static with(tender: DynamicModule): DynamicModule {
    return { module: AppModule, imports: [tender] }
  }
}
