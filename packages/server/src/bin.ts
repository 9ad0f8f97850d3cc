#!/usr/bin/env node
/**
 * The `tender` executable (docs/cli.md): `npx tender migrate`, `seed check FILE`, `keys issue`,
 * `openapi`. The commands are `Cli.main`.
 *
 * @since 0.1.0
 */
import { main } from "./Cli.js"

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env
})
