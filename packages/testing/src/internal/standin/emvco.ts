/**
 * EMVCo QR payloads (the Thai QR, PromptPay) as the stand-ins build them: tag-length-value
 * fields and the CRC-16 they end with. Shared by the Stripe and Adyen stand-ins.
 */

/** One tag-length-value field: the two-digit tag, the value's length in two digits, the value. */
export const tlv = (tag: string, value: string): string => `${tag}${String(value.length).padStart(2, "0")}${value}`

/** CRC-16/CCITT-FALSE over the payload's UTF-8 bytes, the checksum EMVCo QR payloads end with. */
export const crc16 = (text: string): string => {
  let crc = 0xffff
  for (const byte of Buffer.from(text, "utf8")) {
    crc ^= byte << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}
