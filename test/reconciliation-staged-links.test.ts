// The links of a submission staged beside the submit's transaction (issue 30, the reconciliation lag):
// what stageLinks writes must be exactly the references of the batch's bodies (an oracle that reads
// the bodies itself, not the index's SQL), the indexing must take a stage only when it is the
// submission's own (a stage left by a submit that rolled back names the same batch with another
// time), and a submission's stages are gone once it is indexed. Run on both databases; the staging
// itself only starts beside a submit on PostgreSQL (the embedded database runs one transaction at a
// time), so the direct calls below are what covers it on the embedded one.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type RawBuilder } from 'kysely'
import { allOf, newRto, startTestService, world, type Rto, type TestService } from './support/index.ts'
import {
  indexSubmission,
  stageLinks,
  type StagedSubmission,
} from '../src/modules/reconciliation/reconciliation-index.repo.ts'
import { transactionsRunAlone, type Executor } from '../src/platform/db/database.ts'

/** Who names whom, read from a body: the oracle's own list of the reference fields. */
const REFERENCES: Record<string, [string, (body: Record<string, any>) => unknown[]][]> = {
  ProgramOffering: [
    ['Program', (b) => [b.programUID]],
    ['DeliveryLocation', (b) => [b.deliveryLocationUID]],
  ],
  SubjectOffering: [
    ['Subject', (b) => [b.subjectUID]],
    ['ProgramOffering', (b) => [b.programOfferingUID]],
    ['DeliveryLocation', (b) => [b.deliveryLocationUID]],
  ],
  ProgramEnrolment: [
    ['Student', (b) => [b.studentUID]],
    ['ProgramOffering', (b) => [b.programOfferingUID]],
  ],
  SubjectEnrolment: [
    ['Student', (b) => [b.studentUID]],
    ['SubjectOffering', (b) => [b.subjectOfferingUID]],
    ['ProgramEnrolment', (b) => [b.programEnrolmentUID]],
    [
      'DeliveryLocation',
      (b) => (Array.isArray(b.locations) ? b.locations.map((l: any) => l?.deliveryLocationUID) : []),
    ],
  ],
}

class Rollback extends Error {}

describe('reconciliation links staged beside the submit', () => {
  let t: TestService
  let rto: Rto
  before(async () => {
    t = await startTestService()
    rto = await newRto(t)
  })
  after(() => t.close())

  /** The links the batch's bodies make, as "source/uid target/uid", sorted. */
  const linksOfBodies = async (token: string) => {
    const { rows } = await sql<{ t: string; u: string; body: Record<string, any> }>`
      SELECT resource_type AS t, resource_uid::text AS u, body FROM batch_record
       WHERE rto_id = ${rto.rto} AND transaction_batch_token = ${token} AND NOT is_voided`.execute(
      t.service.database.db,
    )
    const links = new Set<string>()
    for (const record of rows)
      for (const [target, named] of REFERENCES[record.t] ?? [])
        for (const uid of named(record.body))
          if (typeof uid === 'string') links.add(`${record.t}/${record.u} ${target}/${uid.toLowerCase()}`)
    return [...links].sort()
  }
  const linksIn = async (db: Executor, from: 'staged' | 'held', where: RawBuilder<unknown>) => {
    const table = from === 'staged' ? sql`reconciliation_staged_link` : sql`held_link`
    const { rows } = await sql<{ link: string }>`
      SELECT source_type || '/' || source_uid || ' ' || target_type || '/' || target_uid AS link
        FROM ${table} WHERE rto_id = ${rto.rto} AND ${where}`.execute(db)
    return rows.map((row) => row.link).sort()
  }
  /** Runs `work` in a transaction that is rolled back. */
  const rolledBack = async (work: (tx: Executor) => Promise<void>) => {
    await assert.rejects(
      t.service.database.db.transaction().execute(async (tx) => {
        await work(tx)
        throw new Rollback()
      }),
      Rollback,
    )
  }

  it('stages exactly the references of the batch, and the indexing takes a stage only for its own submission', async () => {
    const w = await world()
    const token = await rto.reporter.batchWith(allOf(w))
    const expected = await linksOfBodies(token)
    assert.ok(expected.length >= 10, `the world makes links (${expected.length})`)
    const submission: StagedSubmission = { rto: rto.rto, token, submittedAt: new Date('2026-11-27T10:00:00.123Z') }
    const sourcesOfBatch = sql`source_uid IN (SELECT resource_uid FROM batch_record WHERE rto_id = ${rto.rto} AND transaction_batch_token = ${token})`

    // The stage is the bodies' links; taken for this submission, as staged (one link left out of it
    // is left out of the index: the bodies were not read).
    await rolledBack(async (tx) => {
      await stageLinks(tx, submission)
      assert.deepEqual(await linksIn(tx, 'staged', sql`transaction_batch_token = ${token}`), expected)
      const [left, out] = expected[0]!.split(' ') as [string, string]
      const [sourceType, sourceUid] = left.split('/') as [string, string]
      const [targetType, targetUid] = out.split('/') as [string, string]
      await sql`DELETE FROM reconciliation_staged_link WHERE rto_id = ${rto.rto} AND source_type = ${sourceType}
                  AND source_uid = ${sourceUid}::uuid AND target_type = ${targetType} AND target_uid = ${targetUid}::uuid`.execute(
        tx,
      )
      await indexSubmission(tx, submission)
      assert.deepEqual(await linksIn(tx, 'held', sourcesOfBatch), expected.slice(1))
    })

    // A stage of another submission of the batch (a submit that rolled back) is not taken: the
    // indexing reads the bodies, and every link is there.
    await rolledBack(async (tx) => {
      await stageLinks(tx, submission)
      await sql`DELETE FROM reconciliation_staged_link WHERE rto_id = ${rto.rto} AND ctid IN
                  (SELECT ctid FROM reconciliation_staged_link WHERE rto_id = ${rto.rto} LIMIT 1)`.execute(tx)
      await indexSubmission(tx, { ...submission, submittedAt: new Date('2026-11-27T10:00:01.123Z') })
      assert.deepEqual(await linksIn(tx, 'held', sourcesOfBatch), expected)
    })
  })

  it('a stage started beside a submit has committed once the job says its stages have settled, as the service waits for at close', async () => {
    const job = t.service.jobs.reconciliation
    const db = t.service.database.db
    if (transactionsRunAlone(db)) {
      assert.equal(job.prepare, undefined, 'no stage beside a submit where transactions run alone')
      await job.settled() // nothing in flight: resolves at once
      return
    }
    const w = await world()
    const token = await rto.reporter.batchWith(allOf(w))
    const submission: StagedSubmission = { rto: rto.rto, token, submittedAt: new Date('2026-11-28T11:00:00.456Z') }
    job.prepare!(submission) // not awaited, as submit calls it
    await job.settled()
    const staged = sql`transaction_batch_token = ${token} AND submitted_at = ${submission.submittedAt}::timestamptz`
    assert.deepEqual(await linksIn(db, 'staged', staged), await linksOfBodies(token), 'the stage is there, whole')
    await sql`DELETE FROM reconciliation_staged_link WHERE rto_id = ${rto.rto} AND transaction_batch_token = ${token}`.execute(
      db,
    )
  })

  it('a submission submitted through the API is indexed with every link, and its stages (and older ones) are gone after', async () => {
    const w = await world()
    const token = await rto.reporter.batchWith(allOf(w))
    const expected = await linksOfBodies(token)
    const db = t.service.database.db
    // Left by a submit of this batch that rolled back: another time, and a link no body makes.
    await sql`INSERT INTO reconciliation_staged_link
              SELECT ${rto.rto}, ${token}, '2026-01-01T00:00:00Z', 'Student', resource_uid, 'Program', resource_uid
                FROM batch_record WHERE rto_id = ${rto.rto} AND transaction_batch_token = ${token} LIMIT 1`.execute(db)
    await rto.reporter.validate(token)
    const submitted = await rto.reporter.submit(token)
    assert.equal(submitted.status, 200, submitted.text)
    await rto.reporter.waitForReconciled(token)
    const sources = sql`source_uid IN (SELECT resource_uid FROM batch_record WHERE rto_id = ${rto.rto} AND transaction_batch_token = ${token})`
    assert.deepEqual(await linksIn(db, 'held', sources), expected)
    // Cleared once the job has committed the indexing; the job ends just after. (The embedded
    // database's indexing in steps never reads a stage, as none is ever made there.)
    if (transactionsRunAlone(db)) return
    for (let tries = 0; ; tries++) {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM reconciliation_staged_link WHERE rto_id = ${rto.rto}`.execute(db)
      if (rows[0]!.n === 0) break
      assert.ok(tries < 100, `the RTO's stages are cleared (${rows[0]!.n} rows left)`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })
})
