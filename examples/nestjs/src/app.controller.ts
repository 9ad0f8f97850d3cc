/** The app's own routes beside Tender's, with Nest's JSON body parsing as usual. */
import { Body, Controller, Get, Post } from "@nestjs/common"

@Controller()
export class AppController {
  @Get("health")
  health() {
    return { ok: true }
  }

  // Nest answers a POST with 201.
  @Post("orders")
  order(@Body() order: unknown) {
    return { order }
  }
}
