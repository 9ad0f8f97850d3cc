/**
 * Assets (4.4, D3): files a merchant uploads, today the receipts (payment evidence) of
 * payments: a JPEG or PNG of at most 5 MiB (8), told by its bytes, never by the type a
 * client declared or its file name. Scoped to the merchant and environment of the key
 * that uploaded it.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as ApiResponse from "../requests/ApiResponse.js"
import type { Principal } from "../requests/Authentication.js"
import * as Operation from "../requests/Operation.js"
import { Storage, Write } from "../storage/Storage.js"
import * as Table from "../storage/Table.js"
import { ResourceNotFound, ValidationFailed } from "./Errors.js"
import { IdGenerator, isWellFormed, prefixes } from "./Ids.js"
import * as WireShape from "./internal/wireShape.js"

/** The largest file accepted: 5 MiB exactly (8). @since 0.1.0 */
export const maxBytes = 5 * 1024 * 1024

/** The file types accepted (4.4). @since 0.1.0 @category models */
export const ContentType = Schema.Literal("image/jpeg", "image/png")
/** @since 0.1.0 @category models */
export type ContentType = typeof ContentType.Type

/** The stored asset. @since 0.1.0 @category models */
export const AssetRecord = Schema.Struct({
  ...Table.scopeFields,
  contentType: ContentType,
  size: Table.Integer,
  /** Hex SHA-256 of the bytes. */
  sha256: Schema.String,
  bytes: Table.Bytes,
  createdAt: Table.Millis,
  version: Table.Integer
})
/** @since 0.1.0 @category models */
export type AssetRecord = typeof AssetRecord.Type

/** How assets are stored: the bytes in the store itself (a few MiB at most). @since 0.1.0 @category models */
export const table = Table.make({ name: "assets", idPrefix: prefixes.asset, record: AssetRecord })

const wire = WireShape.of<AssetRecord>().make({
  ...WireShape.identity("asset", table.idPrefix),
  content_type: ContentType,
  size: Schema.Int,
  sha256: Schema.String.annotations({ description: "Hex SHA-256 of the file" }),
  created_at: WireShape.time
})

/** The asset as the API returns it (D3). @since 0.1.0 @category wire */
export const Asset = wire.schema.annotations({ identifier: "Asset" })
/** @since 0.1.0 @category wire */
export type Asset = typeof Asset.Type

/** @since 0.1.0 @category wire */
export const toResource: (a: AssetRecord) => Asset = wire.render

/**
 * The type of a file, from its first bytes (its magic number): JPEG starts `FF D8 FF`, PNG
 * starts `89 50 4E 47 0D 0A 1A 0A`. Anything else is none.
 *
 * @since 0.1.0
 */
export const sniff = (bytes: Uint8Array): ContentType | undefined => {
  const starts = (magic: ReadonlyArray<number>) => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg"
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  return undefined
}

/** A file as received: its bytes, under the request parameter that carried it. @since 0.1.0 @category models */
export interface Upload {
  readonly param: string
  readonly bytes: Uint8Array
}

/**
 * Check an uploaded file (4.4, 8) and describe it: a JPEG or PNG by its bytes, of 1 byte to
 * `maxBytes`. Fails with the 400 that names the part.
 *
 * @since 0.1.0
 */
export const inspect = (upload: Upload) => {
  if (upload.bytes.length === 0) return Effect.fail(ValidationFailed.at(upload.param, `${upload.param} is empty.`))
  if (upload.bytes.length > maxBytes) {
    return Effect.fail(ValidationFailed.at(upload.param, `${upload.param} is larger than ${maxBytes} bytes (5 MiB).`))
  }
  const contentType = sniff(upload.bytes)
  if (contentType === undefined) {
    return Effect.fail(ValidationFailed.at(upload.param, `${upload.param} must be a JPEG or PNG image.`))
  }
  return Effect.succeed({
    contentType,
    size: upload.bytes.length,
    sha256: createHash("sha256").update(upload.bytes).digest("hex")
  })
}

/** A new asset record of a checked upload. @since 0.1.0 @category constructors */
export const make = (principal: Principal, upload: Upload, now: number) =>
  Effect.gen(function*() {
    const described = yield* inspect(upload)
    const id = yield* (yield* IdGenerator).make(prefixes.asset)
    return Table.construct(AssetRecord, {
      id,
      merchantId: principal.merchant.id,
      environment: principal.environment,
      ...described,
      bytes: upload.bytes,
      createdAt: now,
      version: 1
    })
  })

/**
 * POST /assets (D3): store a file for a later receipt. The multipart upload requires an
 * `Idempotency-Key` (4.4), checked by the HTTP binding; its fingerprint is the file's
 * SHA-256, so the same key with another file is 409 and with the same file a replay.
 *
 * @since 0.1.0
 */
export const upload = (context: Operation.RequestContext, file: Uint8Array) =>
  Effect.gen(function*() {
    // A file that is no JPEG or PNG is bad input, answered before the key is looked at (D5).
    const described = yield* Effect.either(inspect({ param: "file", bytes: file }))
    if (described._tag === "Left") return ApiResponse.fromError(described.left, context.requestId)
    return yield* Operation.run({
      context,
      route: "POST /assets",
      canonical: { sha256: described.right.sha256 },
      resource: "asset",
      decide: Effect.gen(function*() {
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        const asset = yield* make(context.principal, { param: "file", bytes: file }, now)
        return { response: ApiResponse.json(201, toResource(asset), context.requestId), writes: [Write.insert(table, asset)] }
      })
    })
  })

/**
 * An asset of the caller's merchant and environment; another's is the same 404 as none (4.2).
 *
 * @since 0.1.0
 */
export const find = (principal: Principal, id: string, param = "asset_id") =>
  Effect.gen(function*() {
    if (!isWellFormed(prefixes.asset, id)) {
      return yield* ValidationFailed.at(param, `${param} must be an asset id: asst_ followed by 24 letters and digits`)
    }
    const found = yield* (yield* Storage).get(table, { merchantId: principal.merchant.id, environment: principal.environment }, id)
    if (Option.isNone(found)) return yield* new ResourceNotFound({ param, message: `No asset ${JSON.stringify(id)}.` })
    return found.value
  })

/** What a provider is sent as a receipt: the stored file, its type and digest. @since 0.1.0 @category models */
export const toReceipt = (a: AssetRecord) => ({ contentType: a.contentType, sha256: a.sha256, bytes: a.bytes })
