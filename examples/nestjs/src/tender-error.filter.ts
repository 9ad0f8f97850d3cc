/**
 * A `TenderError` thrown by the Promise API in a controller answers its own status with the D1
 * body (`{ "error": { code, message, param?, details?, request_id } }`), as the same failure does
 * on Tender's HTTP routes: an unknown payout is 404 `resource_not_found`, not Nest's 500.
 */
import { type ArgumentsHost, Catch, type ExceptionFilter } from "@nestjs/common"
import { TenderError } from "@tender/server"
import type { Response } from "express"

@Catch(TenderError)
export class TenderErrorFilter implements ExceptionFilter<TenderError> {
  catch(error: TenderError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>()
    if (error.requestId !== undefined) response.setHeader("request-id", error.requestId)
    response.status(error.status).json({
      error: {
        code: error.code,
        message: error.message,
        ...(error.param === undefined ? {} : { param: error.param }),
        ...(error.details === undefined ? {} : { details: error.details }),
        ...(error.requestId === undefined ? {} : { request_id: error.requestId })
      }
    })
  }
}
