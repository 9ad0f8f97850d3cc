/**
 * A read view as JSON text, kept with the record it was rendered from. A store hands back
 * frozen records that never change (the rule of reads on `Storage`) and may hand back the same
 * object while the record is unchanged, so a record's text is rendered once per change rather
 * than once per read (a list page rendered 25 records on every read; docs/performance.md, "HTTP
 * and core"). Kept by the object itself, never by id, so two stores in one process never see
 * each other's text; a record not from a store (not frozen) is rendered and not kept.
 *
 * @since 0.1.0
 */

/**
 * `view` rendered as JSON text, once per frozen record.
 *
 * @since 0.1.0 @category constructors
 */
export const json = <A extends object, B>(view: (record: A) => B): (record: A) => string => {
  const kept = new WeakMap<A, string>()
  return (record) => {
    if (!Object.isFrozen(record)) return JSON.stringify(view(record))
    let text = kept.get(record)
    if (text === undefined) kept.set(record, text = JSON.stringify(view(record)))
    return text
  }
}
