// The SDK's page object (issue 34): a paged listing is an async iterator over every item and gives one
// page at a time too, page() then nextPage() while hasNextPage, against a real service.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { collect, UsageError } from '../src/index.ts'
import { newRto, sdkFor, startTestService, type TestService } from './support/service.ts'

describe('SDK: page objects beside the async iterators', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('page() then nextPage() walks every page while hasNextPage, the same items in the same order as iterating', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t), { limits: { pageSize: 2 } })
    const created: string[] = []
    for (let i = 0; i < 5; i++) created.push((await sdk.createBatch('NSW')).transactionBatchToken)

    let page = await sdk.batches('NSW').page()
    const seen: [number, number, number, boolean][] = []
    const tokens: string[] = []
    for (;;) {
      seen.push([page.pageNumber, page.numberOfPages, page.results.length, page.hasNextPage])
      tokens.push(...page.results.map((batch) => batch.transactionBatchToken))
      if (!page.hasNextPage) break
      page = await page.nextPage()
    }
    // Five batches two a page: pages of 2, 2 and 1, the last one saying there is no next page.
    assert.deepEqual(seen, [
      [1, 3, 2, true],
      [2, 3, 2, true],
      [3, 3, 1, false],
    ])
    const iterated = await collect(sdk.batches('NSW'))
    assert.deepEqual(
      tokens,
      iterated.map((batch) => batch.transactionBatchToken),
    )
    assert.deepEqual([...tokens].sort(), [...created].sort())
    await assert.rejects(page.nextPage(), UsageError)
  })

  it('page(n) answers that page directly, and a page number below 1 is refused before any request', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t), { limits: { pageSize: 2 } })
    for (let i = 0; i < 3; i++) await sdk.createBatch('NSW')
    const listing = sdk.batches('NSW')
    const first = await listing.page(1)
    const second = await listing.page(2)
    assert.deepEqual(
      [second.pageNumber, second.results, second.hasNextPage],
      [2, (await first.nextPage()).results, false],
    )
    await assert.rejects(listing.page(0), UsageError)
    await assert.rejects(listing.page(1.5), UsageError)
  })

  it('an empty listing is one page with no results and no next page', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const page = await sdk.batches('NSW').page()
    assert.deepEqual([page.pageNumber, page.results, page.hasNextPage], [1, [], false])
  })
})
