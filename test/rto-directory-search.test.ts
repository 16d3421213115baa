// The operators' All RTOs searched (issue 32, "Performance"): a search reads only the RTOs it can find
// in SQL (a code starting with the text, a client id containing it, case aside, LIKE's wildcards taken
// literally) instead of every client and RTO per view. It must list exactly what filtering the whole
// directory gives: RTOs with clients and data, clients only, data only, found by code or by a client.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'
import { rtoDirectory, type RtoEntry } from '../src/modules/console/operator.service.ts'

describe('All RTOs searched in the database', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
    const db = t.service.database.db
    // 97001 to 97012: clients (two for the even ones, one named with a wildcard character), data for
    // the first eight; 97101 and 97102: data only.
    await sql`
      INSERT INTO api_client (client_id, rto_id, secret_hash, scopes)
      SELECT 'SMS-' || i, (97000 + i)::text, 'x', ARRAY['vet:read'] FROM generate_series(1, 12) AS i
      UNION ALL
      SELECT 'second_' || i, (97000 + i)::text, 'x', ARRAY['vet:read'] FROM generate_series(2, 12, 2) AS i`.execute(db)
    await sql`
      INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
      SELECT (97000 + i)::text, j, now() - (i || ' hours')::interval
        FROM generate_series(1, 8) AS i, unnest(ARRAY['NSW', 'VIC']) AS j
      UNION ALL
      SELECT rto, 'NSW', now() FROM unnest(ARRAY['97101', '97102']) AS rto`.execute(db)
  })
  after(() => t.close())

  const matches = (entry: RtoEntry, text: string) =>
    entry.rto.toLowerCase().startsWith(text) || entry.clientIds.some((id) => id.toLowerCase().includes(text))

  it('lists exactly what filtering every RTO gives, with all of each RTO’s clients and its latest submission', async () => {
    const db = t.service.database.db
    const all: RtoEntry[] = []
    for (let page = 1; ; page++) {
      const found = await rtoDirectory(db, '', page)
      all.push(...found.results)
      if (page >= found.numberOfPages) break
    }
    for (const text of [
      '970',
      '9701',
      '97101',
      'sms-1',
      'SMS-1',
      'second',
      'second_4',
      '_',
      '%',
      'nobody',
      ' 97002 ',
    ]) {
      const found = await rtoDirectory(db, text, 1)
      const expected = all.filter((entry) => matches(entry, text.trim().toLowerCase()))
      assert.deepEqual(found.results, expected.slice(0, 50), `search "${text}"`)
      assert.equal(found.numberOfResults, expected.length, `count of "${text}"`)
    }
    const byClient = await rtoDirectory(db, 'second_4', 1)
    assert.deepEqual(
      byClient.results.map((e) => [e.rto, e.clientIds]),
      [['97004', ['SMS-4', 'second_4']]],
    )
    assert.ok(byClient.results[0]!.lastSubmittedAt !== null, 'with its latest submission')
    assert.equal((await rtoDirectory(db, '%', 1)).numberOfResults, 0, 'a wildcard is a character')
    assert.equal((await rtoDirectory(db, '9710', 1)).numberOfResults, 2, 'RTOs with data and no client')
  })
})
