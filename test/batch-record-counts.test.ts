// A batch's records by type, kept (migration 0036, batch_record_count; issue 32, "Performance": the
// console's batch pages and home page counted a 110,000-record batch on every view). Kept as deltas
// by triggers on batch_record, so it could drift from the records it counts: after single uploads,
// replacements, a bulk upload, concurrent uploads to one batch, record deletes, voids and a discard,
// the kept sums must equal a fresh count (and sum of change numbers) of batch_record, the API's batch
// must say the fresh counts, and the validation fingerprint (now summed from the kept rows) must equal
// one computed from the records.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  call,
  loadExample,
  minimalUnitRecord,
  Reporter,
  startTestService,
  uploadsOf,
  V1,
  voided,
  world,
  type TestService,
} from './support/index.ts'

const studentUid = (n: number) => `5e000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe('a batch’s kept record counts by type', () => {
  let t: TestService
  let reporter: Reporter
  let student: Record<string, unknown>
  before(async () => {
    t = await startTestService()
    reporter = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    student = await loadExample('student')
  })
  after(() => t.close())

  type Row = { rto_id: string; token: string; resource_type: string; n: string; s: string }
  const kept = async () =>
    (
      await sql<Row>`
        SELECT rto_id, transaction_batch_token AS token, resource_type, sum(record_count)::text AS n,
               sum(change_seq_sum)::text AS s
          FROM batch_record_count GROUP BY 1, 2, 3 HAVING sum(record_count) <> 0 OR sum(change_seq_sum) <> 0
         ORDER BY 1, 2, 3`.execute(t.service.database.db)
    ).rows
  const fresh = async () =>
    (
      await sql<Row>`
        SELECT rto_id, transaction_batch_token AS token, resource_type, count(*)::text AS n, sum(change_seq)::text AS s
          FROM batch_record GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`.execute(t.service.database.db)
    ).rows
  const fingerprints = async () =>
    (
      await sql<{ token: string; n: string; s: string }>`
        SELECT transaction_batch_token AS token, record_count::text AS n, change_seq_sum::text AS s
          FROM batch_fingerprint ORDER BY 1`.execute(t.service.database.db)
    ).rows
  const freshFingerprints = async () =>
    (
      await sql<{ token: string; n: string; s: string }>`
        SELECT b.transaction_batch_token AS token, count(r.*)::text AS n, coalesce(sum(r.change_seq), 0)::text AS s
          FROM transaction_batch b
          LEFT JOIN batch_record r ON r.rto_id = b.rto_id AND r.transaction_batch_token = b.transaction_batch_token
         GROUP BY 1 ORDER BY 1`.execute(t.service.database.db)
    ).rows
  const assertNoDrift = async (after: string) => {
    assert.deepEqual(await kept(), await fresh(), `kept counts after ${after}`)
    assert.deepEqual(await fingerprints(), await freshFingerprints(), `fingerprints after ${after}`)
  }
  /** What the API's batch says, against a fresh count of the batch's records by type. */
  const assertApiCounts = async (batch: string, after: string) => {
    const answer = await reporter.request('GET', reporter.batchPath(batch))
    assert.equal(answer.status, 200, answer.text)
    const rows = (await fresh()).filter((row) => row.token === batch)
    const expected = Object.fromEntries(
      Object.keys(answer.json.recordCounts).map((type) => [
        type,
        Number(rows.find((row) => row.resource_type === type)?.n ?? 0),
      ]),
    )
    assert.deepEqual(answer.json.recordCounts, expected, `recordCounts after ${after}`)
    assert.equal(
      answer.json.totalRecords,
      rows.reduce((sum, row) => sum + Number(row.n), 0),
      `totalRecords after ${after}`,
    )
  }

  it('equal a fresh count after uploads, replacements, bulk and concurrent uploads, deletes, voids and a discard', async () => {
    const batch = await reporter.newBatch()
    const uploads = await minimalUnitRecord()
    await reporter.upload(batch, uploads)
    await assertNoDrift('single uploads')
    await assertApiCounts(batch, 'single uploads')
    assert.ok((await kept()).some((row) => row.token === batch && row.resource_type === 'SubjectEnrolment'))

    // A replacement keeps the count and moves the change number (and so the fingerprint).
    const before = (await fingerprints()).find((row) => row.token === batch)!
    await reporter.upload(batch, [uploads[0]!])
    await assertNoDrift('a replacement')
    const moved = (await fingerprints()).find((row) => row.token === batch)!
    assert.equal(moved.n, before.n, 'a replacement keeps the count')
    assert.notEqual(moved.s, before.s, 'a replacement moves the sum of change numbers')

    // Many single uploads at once into the one batch (concurrent transactions on PostgreSQL).
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        reporter.upload(batch, [{ segment: 'student', body: { ...student, studentUID: studentUid(i) } }]),
      ),
    )
    await assertNoDrift('concurrent uploads')
    await assertApiCounts(batch, 'concurrent uploads')

    // The same new record uploaded many times at once (migration 0047: the upload inserts first, and
    // one that meets the record another just inserted replaces it): one record, created once.
    const same = { ...student, studentUID: studentUid(900) }
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => reporter.request('POST', reporter.batchPath(batch, '/student'), same)),
    )
    assert.deepEqual(
      statuses.map((answer) => answer.status).sort(),
      [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201],
      statuses.map((answer) => answer.text).join('\n'),
    )
    await assertNoDrift('the same new record uploaded at once')
    await assertApiCounts(batch, 'the same new record uploaded at once')

    // A bulk upload: new records and replacements in one statement.
    const lines = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ resourceType: 'Student', record: { ...student, studentUID: studentUid(20 + i) } }),
    ).join('\n')
    const bulk = await call(t.baseUrl, 'POST', reporter.batchPath(batch, '/records'), {
      token: reporter.token,
      body: lines,
      headers: { 'content-type': 'application/x-ndjson' },
    })
    assert.equal(bulk.status, 200, bulk.text)
    assert.equal(bulk.json.created, 40)
    assert.equal(bulk.json.replaced, 20)
    await assertNoDrift('a bulk upload')
    await assertApiCounts(batch, 'a bulk upload')

    // Record deletes.
    for (const i of [0, 1, 2, 79]) {
      const removed = await reporter.request('DELETE', reporter.batchPath(batch, `/student/${studentUid(i)}`))
      assert.equal(removed.status, 204, removed.text)
    }
    await assertNoDrift('deletes')
    await assertApiCounts(batch, 'deletes')
    // The deltas are folded now and then: a hundred statements into one batch leave far fewer rows.
    const deltaRows = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM batch_record_count WHERE transaction_batch_token = ${batch}`.execute(
      t.service.database.db,
    )
    assert.ok(deltaRows.rows[0]!.n < 60, `${deltaRows.rows[0]!.n} delta rows after about 60 writing statements`)

    // Voids (Standard workflow 3) into a batch, then submitted: the batch keeps its counts.
    const w = await world()
    const voids = await reporter.batchWith([
      ...uploadsOf(w, 'student', 'location', 'subject'),
      { segment: 'deliverylocation', body: voided(w.location, 'remove_duplicate_record') },
    ])
    await assertNoDrift('voids')
    await assertApiCounts(voids, 'voids')

    // A discard takes the batch's kept rows with it.
    const discarded = await reporter.request('DELETE', reporter.batchPath(batch))
    assert.equal(discarded.status, 204, discarded.text)
    await assertNoDrift('a discard')
    const left = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM batch_record_count WHERE transaction_batch_token = ${batch}`.execute(
      t.service.database.db,
    )
    assert.equal(left.rows[0]!.n, 0, 'no kept row of a discarded batch')
    const gone = await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}`, { token: reporter.token })
    assert.equal(gone.status, 404)
  })
})
