/**
 * What a `list(query)` returns: awaited, the first page; iterated with `for await`, every item
 * across pages, following the D6 cursors (Stripe's auto-paging). docs/client.md, "Lists".
 *
 * @since 0.1.0
 */
import type { Page } from "./Resources.js"

/**
 * The first page of a list, fetched once when first awaited or iterated, and an async iterable
 * over every item of every page: each next page is requested with the same query and the
 * previous page's `next_cursor`, only when the loop gets there.
 *
 * @since 0.1.0 @category models
 */
export class ListPage<T, P extends Page<T> = Page<T>> implements PromiseLike<P>, AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<P>
  readonly #cursor: string | undefined
  #first: Promise<P> | undefined

  /** `fetchPage(cursor)` answers the page after `cursor`, the first page for `undefined` (or for the query's own cursor). */
  constructor(fetchPage: (cursor: string | undefined) => Promise<P>, cursor?: string) {
    this.#fetchPage = fetchPage
    this.#cursor = cursor
  }

  /** The first page, requested once. */
  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#cursor)
    return this.#first
  }

  /** @since 0.1.0 */
  then<A = P, B = never>(
    onfulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null
  ): Promise<A | B> {
    return this.#firstPage().then(onfulfilled, onrejected)
  }

  /** @since 0.1.0 */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#firstPage().catch(onrejected)
  }

  /** @since 0.1.0 */
  finally(onfinally?: (() => void) | null): Promise<P> {
    return this.#firstPage().finally(onfinally)
  }

  /** Every item of every page, most recent first. @since 0.1.0 */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.#firstPage()
    for (;;) {
      yield* page.data
      if (!page.has_more || page.next_cursor === null) return
      page = await this.#fetchPage(page.next_cursor)
    }
  }

  /**
   * Every item across pages into one array, stopping at `limit` items: a bound is required,
   * so a list that keeps growing cannot take the process's memory.
   *
   * @since 0.1.0
   */
  async autoPagingToArray(options: { readonly limit: number }): Promise<Array<T>> {
    const items: Array<T> = []
    if (options.limit <= 0) return items
    for await (const item of this) {
      items.push(item)
      if (items.length >= options.limit) break
    }
    return items
  }
}
