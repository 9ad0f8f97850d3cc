/**
 * A request that reached Tender's middleware outside its prefix: Tender mounted under another
 * path than its `publicUrl` names (Express's `app.use("/api", …)` while the prefix is
 * `/payments`), or one of Tender's routes asked for without the prefix (a proxy that strips
 * it). Every such request would fall through to the host's 404 without a word; the first is
 * reported once, naming both paths (docs/embedding.md, "The prefix").
 */

/** The warning for a request to `url`, or undefined when nothing is out of place. */
export const problem = (
  owns: (path: string) => boolean,
  prefix: string,
  path: string,
  mountedAt: string | undefined
): string | undefined => {
  if (owns(path)) return undefined
  const mounted = mountedAt === undefined || mountedAt === "/" ? "" : mountedAt.replace(/\/+$/, "")
  if (mounted !== "" && mounted !== prefix && !prefix.startsWith(`${mounted}/`)) {
    return `tender: mounted at ${JSON.stringify(mounted)} but its prefix (the path of publicUrl) is ${JSON.stringify(prefix)}: ` +
      `requests under ${mounted} never reach Tender's routes; mount it with app.use(tender.express()) (no path) ` +
      `or make publicUrl's path ${mounted}`
  }
  if (prefix !== "" && owns(prefix + path)) {
    return `tender: a request for ${path} reached Tender outside its prefix ${JSON.stringify(prefix)} (the path of publicUrl): ` +
      `Tender answers only under ${prefix}; does a proxy or a framework strip the prefix? then give publicUrl the path it keeps`
  }
  return undefined
}

/** `problem`, reported through `report` the first time only. */
export const reporter = (owns: (path: string) => boolean, prefix: string, report: (message: string) => void) => {
  let reported = false
  return (path: string, mountedAt: string | undefined): void => {
    if (reported) return
    const message = problem(owns, prefix, path, mountedAt)
    if (message === undefined) return
    reported = true
    report(message)
  }
}
