// Paging until the end (spec: Limits): ask for the next page while the latest answer says there are
// more, or until a page comes back empty. The page count is read from each answer, never assumed:
// it may grow while the caller pages.

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

/** Collects an async iterable into an array. */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = []
  for await (const item of items) all.push(item)
  return all
}
