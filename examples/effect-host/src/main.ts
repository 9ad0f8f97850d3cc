/**
 * Start the Effect host example: `npm start -w @tender/example-effect-host` (PORT, default 3003).
 * Ctrl-C interrupts the launched layer: the server stops, Tender's workers are interrupted.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { fileURLToPath } from "node:url"
import { layer } from "./server.js"

const port = Number(process.env["PORT"] ?? "3003")
NodeRuntime.runMain(Layer.launch(layer({
  port,
  publicOrigin: process.env["PUBLIC_ORIGIN"] ?? `http://127.0.0.1:${port}`,
  seedPath: fileURLToPath(new URL("../seed.json", import.meta.url)),
  checkoutSecret: process.env["TENDER_CHECKOUT_SECRET"] ?? "example-checkout-secret-change-me"
})))
