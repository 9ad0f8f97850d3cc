/** The assets group (D3, 4.4): one module per group, assembled in `Api.ts`. */
import { HttpApiSchema } from "@effect/platform"
import { Asset } from "@tender/core"
import { authenticated, endpoint, FileUpload, group, IdempotencyConflict, IdempotencyHeaders, JsonBody, PayloadTooLarge } from "./shared.js"

/** Assets: files for later receipts (D3, 4.4). @since 0.1.0 */
export class AssetsGroup extends group("assets", "Files uploaded for later use, such as a receipt image (4.4).")
  .add(
    endpoint.post("upload", "/assets", "Upload an asset")
      .setHeaders(IdempotencyHeaders)
      .setPayload(FileUpload)
      .middleware(JsonBody)
      .addSuccess(Asset.Asset.annotations(HttpApiSchema.annotations({ status: 201, identifier: "Asset" })))
      .addError(IdempotencyConflict)
      .addError(PayloadTooLarge)
  )
  .pipe(authenticated)
{}
