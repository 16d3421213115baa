// The shared paged envelope's schemas (spec: Paged response envelope, Limits): the page query and the
// envelope a route publishes. A page past the end is 200 with empty results; out-of-range or
// non-integer page values are 400 through the query schema. The Page type and toPage are the kernel's
// (src/domain/page.ts).
import Type, { type Static, type TSchema } from 'typebox'
import { componentNameOf, named } from './schema-names.ts'

export const MAX_PAGE_NUMBER = 2_147_483_647

export const PageQuery = Type.Object(
  {
    pageNumber: Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_NUMBER,
      default: 1,
      description: 'page to return, from 1',
    }),
    pageSize: Type.Integer({ minimum: 1, maximum: 500, default: 10, description: 'results per page, at most 500' }),
  },
  { additionalProperties: false },
)
export type PageQuery = Static<typeof PageQuery>

/** The envelope of a page of items; a page of a named item is published as <item name>Page. */
export const PagedEnvelope = <Item extends TSchema>(item: Item, description: string) => {
  const envelope = Type.Object(
    {
      pageNumber: Type.Integer({ description: 'current page' }),
      numberOfPages: Type.Integer({ description: 'total pages' }),
      numberOfResults: Type.Integer({ description: 'total results across pages' }),
      pageSize: Type.Integer({ description: 'maximum results per page' }),
      results: Type.Array(item),
    },
    { description },
  )
  const itemName = componentNameOf(item)
  return itemName ? named(`${itemName}Page`, envelope) : envelope
}
