// Paging until the end (spec: Limits): ask for the next page while the latest answer says there are
// more, or until a page comes back empty. The page count is read from each answer, never assumed:
// it may grow while the caller pages. A listing is both: iterate it for every item, or ask it for a
// page (`page()`) and walk on with `nextPage()` while `hasNextPage`.
import { UsageError } from './errors.ts'

export interface PageEnvelope<Item> {
  pageNumber: number
  numberOfPages: number
  results: Item[]
}

export async function* allPages<Item>(
  fetchPage: (pageNumber: number) => Promise<PageEnvelope<Item>>,
): AsyncGenerator<Item[], void, undefined> {
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await fetchPage(pageNumber)
    if (page.results.length === 0) return
    yield page.results
    if (pageNumber >= page.numberOfPages) return
  }
}

/** Every item of every page, in order. */
export async function* allItems<Item>(
  fetchPage: (pageNumber: number) => Promise<PageEnvelope<Item>>,
): AsyncGenerator<Item, void, undefined> {
  for await (const results of allPages(fetchPage)) yield* results
}

/** One page of a listing, and the way to the next one. */
export interface Page<Item> {
  results: Item[]
  /** 1-based. */
  pageNumber: number
  /** As the service said with this page; it may grow while the caller pages. */
  numberOfPages: number
  /** Whether a later page may hold items: this one is not empty and is not the last. */
  hasNextPage: boolean
  /** Asks for the page after this one; a UsageError when hasNextPage is false (the loop is over). */
  nextPage(): Promise<Page<Item>>
}

/**
 * What a paged listing returns: an async iterator over every item of every page (`for await`,
 * `collect`), and `page(n)` for one page at a time, from which `nextPage()` goes on. Each `page()`
 * call asks the service anew; the iterator runs once.
 */
export type Paged<Item> = AsyncGenerator<Item, void, undefined> & {
  /** The page numbered pageNumber (1-based; the first page by default), asked of the service now. */
  page(pageNumber?: number): Promise<Page<Item>>
}

export function paged<Item>(fetchPage: (pageNumber: number) => Promise<PageEnvelope<Item>>): Paged<Item> {
  const pageOf = (envelope: PageEnvelope<Item>): Page<Item> => {
    const { results, pageNumber, numberOfPages } = envelope
    const hasNextPage = results.length > 0 && pageNumber < numberOfPages
    return {
      results,
      pageNumber,
      numberOfPages,
      hasNextPage,
      nextPage: async () => {
        if (!hasNextPage)
          throw new UsageError(
            `page ${pageNumber} of ${numberOfPages} is the last: check hasNextPage before nextPage()`,
          )
        return pageOf(await fetchPage(pageNumber + 1))
      },
    }
  }
  const page = async (pageNumber = 1): Promise<Page<Item>> => {
    if (!Number.isSafeInteger(pageNumber) || pageNumber < 1)
      throw new UsageError(`pageNumber must be a whole number from 1 (got ${pageNumber})`)
    return pageOf(await fetchPage(pageNumber))
  }
  return Object.assign(allItems(fetchPage), { page })
}

/** Collects an async iterable into an array. */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = []
  for await (const item of items) all.push(item)
  return all
}
