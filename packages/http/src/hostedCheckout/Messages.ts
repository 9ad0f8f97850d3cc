/**
 * The hosted page's words in English and Thai, and the choice between them: `?lang=` (the
 * page's own switch) first, then the browser's `Accept-Language`, then English.
 *
 * @since 0.1.0
 */

/** The page's languages. @since 0.1.0 */
export type Lang = "en" | "th"

/** @since 0.1.0 */
export const langs: ReadonlyArray<Lang> = ["en", "th"]

const isLang = (s: string | null | undefined): s is Lang => s === "en" || s === "th"

/**
 * The page's language: an explicit `?lang=`, else the first of the browser's languages (by
 * q-value) that the page speaks, else English.
 *
 * @since 0.1.0
 */
export const negotiate = (explicit: string | null | undefined, acceptLanguage: string | undefined): Lang => {
  if (isLang(explicit)) return explicit
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";")
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
      const weight = q === undefined ? 1 : Number(q.slice(2))
      return { primary: tag.trim().toLowerCase().split("-")[0], weight: Number.isFinite(weight) ? weight : 0, index }
    })
    .filter((x) => x.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
  return ranked.map((x) => x.primary).find(isLang) ?? "en"
}

/** The locale `Intl` formats amounts and times in. @since 0.1.0 */
export const locale = (lang: Lang) => (lang === "th" ? "th-TH" : "en-GB")

const en = {
  title: "Checkout",
  payTo: "Pay to",
  amount: "Amount",
  languageLabel: "Language",
  chooseMethod: "Choose how to pay",
  continue: "Continue",
  changeMethod: "Choose another method",
  yourDetails: "Your details",
  required: "required",
  optional: "optional",
  pay: "Pay",
  selectBank: "Select your bank",
  fieldErrorsTitle: "Please check the form",
  noMethods: "No payment method is available for this payment right now. Please return to the shop and try again later.",
  scanTitle: "Scan to pay with PromptPay",
  scanHelp: "Open your banking app, scan this QR code and confirm the payment.",
  qrAlt: "PromptPay QR code for",
  transferTitle: "Transfer to this account",
  transferHelp: "Make the transfer from your banking app, then upload the transfer slip.",
  bankName: "Bank",
  accountNumber: "Account number",
  accountName: "Account name",
  reference: "Reference",
  slip: "Transfer slip (JPEG or PNG, at most 5 MB)",
  uploadSlip: "Upload slip",
  redirectTitle: "Continue at your bank",
  redirectHelp: "You will approve the payment in your bank's online banking, then come back here.",
  goToBank: "Continue to your bank",
  expiresIn: "Time left to pay:",
  expired: "Time is up",
  waiting: "Waiting for your payment. This page updates by itself.",
  processing: "We are confirming your payment. This page updates by itself.",
  receiptReceived: "Thank you: we received your transfer slip and are checking it.",
  succeeded: "Payment complete",
  succeededHelp: "Your payment was received. You can close this page.",
  failed: "Payment not completed",
  failedHelp: "The payment did not go through. No money was taken. Please return to the shop to try again.",
  expiredTitle: "Payment expired",
  expiredHelp: "The time to pay has run out. Please return to the shop to start again.",
  canceledTitle: "Payment canceled",
  canceledHelp: "The shop canceled this payment. Please do not pay it; return to the shop if you still want to order.",
  returnToShop: "Return to the shop",
  testMode: "Test mode: no real money moves.",
  simulateTitle: "Simulate the payer (test mode only)",
  scan_done: "Simulate: QR code scanned and paid",
  transfer_made: "Simulate: transfer made (uploads a sample slip)",
  bank_approved: "Approve the payment",
  bank_declined: "Decline the payment",
  bankPageTitle: "Simulated online banking",
  bankPageHelp: "This is the test bank. Approve or decline the payment.",
  badLinkTitle: "This payment link is not valid",
  badLinkHelp: "Check that you opened the whole link, or return to the shop and start again.",
  expiredLinkTitle: "This payment link has expired",
  expiredLinkHelp: "Return to the shop and start the payment again.",
  staleFormTitle: "This form has expired",
  staleFormHelp: "Please reload the payment page and try again.",
  notFoundTitle: "Page not found",
  errorTitle: "Something went wrong",
  errorHelp: "Please try again in a moment."
}

/** The words of one language. @since 0.1.0 */
export type Messages = typeof en

const th: Messages = {
  title: "ชำระเงิน",
  payTo: "ชำระให้",
  amount: "จำนวนเงิน",
  languageLabel: "ภาษา",
  chooseMethod: "เลือกวิธีชำระเงิน",
  continue: "ดำเนินการต่อ",
  changeMethod: "เลือกวิธีอื่น",
  yourDetails: "ข้อมูลของคุณ",
  required: "จำเป็น",
  optional: "ไม่บังคับ",
  pay: "ชำระเงิน",
  selectBank: "เลือกธนาคารของคุณ",
  fieldErrorsTitle: "โปรดตรวจสอบแบบฟอร์ม",
  noMethods: "ขณะนี้ไม่มีวิธีชำระเงินสำหรับรายการนี้ โปรดกลับไปที่ร้านค้าและลองใหม่ภายหลัง",
  scanTitle: "สแกนเพื่อชำระด้วยพร้อมเพย์",
  scanHelp: "เปิดแอปธนาคาร สแกนคิวอาร์โค้ดนี้ แล้วยืนยันการชำระเงิน",
  qrAlt: "คิวอาร์โค้ดพร้อมเพย์ สำหรับ",
  transferTitle: "โอนเงินเข้าบัญชีนี้",
  transferHelp: "โอนเงินจากแอปธนาคารของคุณ แล้วอัปโหลดสลิปการโอน",
  bankName: "ธนาคาร",
  accountNumber: "เลขที่บัญชี",
  accountName: "ชื่อบัญชี",
  reference: "เลขอ้างอิง",
  slip: "สลิปการโอน (JPEG หรือ PNG ไม่เกิน 5 MB)",
  uploadSlip: "อัปโหลดสลิป",
  redirectTitle: "ดำเนินการต่อที่ธนาคารของคุณ",
  redirectHelp: "คุณจะยืนยันการชำระเงินในระบบออนไลน์ของธนาคาร แล้วกลับมาที่หน้านี้",
  goToBank: "ไปที่ธนาคารของคุณ",
  expiresIn: "เวลาที่เหลือในการชำระ:",
  expired: "หมดเวลาแล้ว",
  waiting: "กำลังรอการชำระเงินของคุณ หน้านี้จะอัปเดตเอง",
  processing: "กำลังยืนยันการชำระเงินของคุณ หน้านี้จะอัปเดตเอง",
  receiptReceived: "ขอบคุณ เราได้รับสลิปการโอนของคุณแล้วและกำลังตรวจสอบ",
  succeeded: "ชำระเงินสำเร็จ",
  succeededHelp: "เราได้รับการชำระเงินของคุณแล้ว คุณสามารถปิดหน้านี้ได้",
  failed: "การชำระเงินไม่สำเร็จ",
  failedHelp: "การชำระเงินไม่สำเร็จและไม่มีการตัดเงิน โปรดกลับไปที่ร้านค้าเพื่อลองใหม่",
  expiredTitle: "การชำระเงินหมดอายุ",
  expiredHelp: "หมดเวลาชำระเงินแล้ว โปรดกลับไปที่ร้านค้าเพื่อเริ่มใหม่",
  canceledTitle: "การชำระเงินถูกยกเลิก",
  canceledHelp: "ร้านค้ายกเลิกการชำระเงินนี้แล้ว โปรดอย่าชำระเงิน หากยังต้องการสั่งซื้อ โปรดกลับไปที่ร้านค้า",
  returnToShop: "กลับไปที่ร้านค้า",
  testMode: "โหมดทดสอบ: ไม่มีการโอนเงินจริง",
  simulateTitle: "จำลองผู้ชำระเงิน (เฉพาะโหมดทดสอบ)",
  scan_done: "จำลอง: สแกนคิวอาร์โค้ดและชำระแล้ว",
  transfer_made: "จำลอง: โอนเงินแล้ว (อัปโหลดสลิปตัวอย่าง)",
  bank_approved: "อนุมัติการชำระเงิน",
  bank_declined: "ปฏิเสธการชำระเงิน",
  bankPageTitle: "ธนาคารออนไลน์จำลอง",
  bankPageHelp: "นี่คือธนาคารทดสอบ อนุมัติหรือปฏิเสธการชำระเงิน",
  badLinkTitle: "ลิงก์ชำระเงินนี้ไม่ถูกต้อง",
  badLinkHelp: "ตรวจสอบว่าคุณเปิดลิงก์ครบถ้วน หรือกลับไปที่ร้านค้าและเริ่มใหม่",
  expiredLinkTitle: "ลิงก์ชำระเงินนี้หมดอายุแล้ว",
  expiredLinkHelp: "กลับไปที่ร้านค้าและเริ่มการชำระเงินใหม่",
  staleFormTitle: "แบบฟอร์มนี้หมดอายุแล้ว",
  staleFormHelp: "โปรดโหลดหน้าชำระเงินใหม่แล้วลองอีกครั้ง",
  notFoundTitle: "ไม่พบหน้านี้",
  errorTitle: "เกิดข้อผิดพลาด",
  errorHelp: "โปรดลองใหม่อีกครั้งในภายหลัง"
}

/** The payer fields' labels (2.2 discovery names), per language. @since 0.1.0 */
export const fieldLabels: Record<Lang, Record<string, string>> = {
  en: {
    customer_name: "Full name",
    customer_phone: "Mobile phone number",
    account_name: "Name on your bank account",
    account_number: "Your bank account number",
    bank: "Your bank",
    name_th: "Full name in Thai"
  },
  th: {
    customer_name: "ชื่อ-นามสกุล",
    customer_phone: "หมายเลขโทรศัพท์มือถือ",
    account_name: "ชื่อบัญชีธนาคารของคุณ",
    account_number: "เลขที่บัญชีธนาคารของคุณ",
    bank: "ธนาคารของคุณ",
    name_th: "ชื่อ-นามสกุลภาษาไทย"
  }
}

/** The words of `lang`. @since 0.1.0 */
export const messages = (lang: Lang): Messages => (lang === "th" ? th : en)
