/** A generated page's hand-written tail: the bench rewrites what is above "## Notes" and keeps the rest. */
import { readFileSync } from "node:fs"

/** The part of the page at `path` from "## Notes" on, or nothing. */
export const readNotes = (path: string) => {
  try {
    const text = readFileSync(path, "utf8")
    const at = text.indexOf("\n## Notes")
    return at === -1 ? "" : text.slice(at)
  } catch {
    return ""
  }
}
