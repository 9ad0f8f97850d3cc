/**
 * The app's back office on Tender's Promise API, through the `TENDER` token: approving a payout
 * is the host's decision (D8), not a merchant's API call. A `TenderError` the call rejects with
 * (unknown payout, not awaiting approval, a bad environment) answers through `TenderErrorFilter`.
 */
import { Controller, Get, HttpCode, Inject, Param, Post } from "@nestjs/common"
import type { TenderInstance } from "@tender/server"
import { TENDER } from "./tender.module.js"

@Controller("back-office/:environment/merchants/:merchant/payouts")
export class PayoutsController {
  constructor(@Inject(TENDER) private readonly tender: TenderInstance) {}

  // Tender checks the environment itself: anything but "test" or "live" is 400 validation_failed.
  @Get(":id")
  get(@Param("environment") environment: "test" | "live", @Param("merchant") merchant: string, @Param("id") id: string) {
    return this.tender.payoutIntents.retrieve(id, { merchant, environment })
  }

  @Post(":id/approve")
  @HttpCode(200)
  approve(@Param("environment") environment: "test" | "live", @Param("merchant") merchant: string, @Param("id") id: string) {
    return this.tender.payoutIntents.approve(id, { merchant, environment })
  }
}
