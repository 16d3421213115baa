// A page of results (spec: Paged response envelope). The query schema and the envelope's published
// schema are platform/http's (paging.ts); services work with these types.

/** Which page a caller asks for: numbered from 1, at most pageSize results. */
export interface PageQuery {
  pageNumber: number
  pageSize: number
}

export interface Page<Item> {
  pageNumber: number
  numberOfPages: number
  numberOfResults: number
  pageSize: number
  results: Item[]
}

export function toPage<Item>(results: Item[], numberOfResults: number, query: PageQuery): Page<Item> {
  return {
    pageNumber: query.pageNumber,
    numberOfPages: Math.ceil(numberOfResults / query.pageSize),
    numberOfResults,
    pageSize: query.pageSize,
    results,
  }
}

/** Rows to skip for a page. Callers with large tables page by key instead (see docs/decisions.md). */
export function offsetOf(query: PageQuery): number {
  return (query.pageNumber - 1) * query.pageSize
}
