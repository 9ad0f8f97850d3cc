/**
 * Files the tests upload (receipts, assets), built in memory.
 */

/** PNG's 8-byte signature: what the asset store sniffs a PNG by. */
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** `size` bytes that sniff as a PNG: the signature, then bytes that vary, so a copy cut short or zeroed shows. */
export const png = (size = 64): Uint8Array<ArrayBuffer> => {
  const bytes = new Uint8Array(size)
  bytes.set(pngSignature)
  for (let i = pngSignature.length; i < size; i++) bytes[i] = i & 0xff
  return bytes
}

/** A multipart body with `bytes` in the part `name` (default `file`), as POST /assets and receipts take one. */
export const formWith = (bytes: Uint8Array, name = "file", type = "image/png"): FormData => {
  const form = new FormData()
  form.append(name, new Blob([new Uint8Array(bytes)], { type }), "receipt.png")
  return form
}
