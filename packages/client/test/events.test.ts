// The SDK's change feed (issue 33): events() iterates the RTO's events after a cursor, page after
// page, resumes from a stored sequence, and with follow waits for new events until its signal aborts.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { collect, type VetrsEvent } from '../src/index.ts'
import { newRto, sdkFor, startTestService, type TestService } from './support/service.ts'

describe('SDK: the change feed', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('events(after) iterates every event after the cursor across pages, and resumes from a stored sequence', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const tokens: string[] = []
    for (let i = 0; i < 5; i++) tokens.push((await sdk.createBatch('NSW')).transactionBatchToken)
    const all = await collect(sdk.events('0', { pageSize: 2 }))
    assert.deepEqual(
      all.map((e) => [e.type, e.sequence, e.data.transactionBatchToken]),
      tokens.map((token, i) => ['au.gov.vetrs.batch.created', String(i + 1), token]),
    )
    const stored = all[2]!.sequence
    const resumed = await collect(sdk.events(stored, { pageSize: 2 }))
    assert.deepEqual(
      resumed.map((e) => e.sequence),
      ['4', '5'],
    )
  })

  it('events with follow waits for an event made after it caught up, and stops when its signal aborts', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    await sdk.createBatch('NSW')
    const controller = new AbortController()
    const seen: VetrsEvent[] = []
    const reading = (async () => {
      for await (const event of sdk.events('0', { follow: true, pollIntervalMs: 50, signal: controller.signal })) {
        seen.push(event)
        if (seen.length === 1) await sdk.createBatch('NSW')
        if (seen.length === 2) controller.abort()
      }
    })()
    await assert.rejects(reading, { name: 'AbortError' })
    assert.deepEqual(
      seen.map((e) => e.sequence),
      ['1', '2'],
    )
  })
})
