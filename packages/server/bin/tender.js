#!/usr/bin/env node
// The `tender` executable (docs/cli.md). The published package runs its built CLI (dist/bin.js);
// a repository checkout that has not run `npm run build` yet runs the TypeScript source through
// tsx (a dev dependency of the repository), so `npx tender` works right after `npm ci`.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = new URL("../dist/bin.js", import.meta.url)
if (existsSync(built)) {
  await import(built.href)
} else {
  const source = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
  // tsx as the repository has it, whatever the directory the command runs in.
  const args = ["--conditions=@tender/source", "--import", import.meta.resolve("tsx"), source, ...process.argv.slice(2)]
  const { status, error } = spawnSync(process.execPath, args, { stdio: "inherit" })
  if (error !== undefined) throw error
  process.exitCode = status ?? 1
}
