// The operators' kept latest submission per RTO and jurisdiction (migration 0035,
// rto_jurisdiction_submission; issue 32, "Performance": the All RTOs list and the collection read it
// instead of a GROUP BY over every submission mark per view). Kept by holdings' promotion in the
// submit's transaction, so it could drift from the marks it summarises: after each upload, submit and
// void here it must equal a fresh max() over reporting_period_submission, and the operators' reads
// (All RTOs, the collection at a glance) must say what a fresh count says.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  minimalUnitRecord,
  Reporter,
  startTestService,
  uploadsOf,
  voided,
  world,
  type TestService,
} from './support/index.ts'
import { collectionAtAGlance, rtoDirectory } from '../src/modules/console/operator.service.ts'
import { currentReportingPeriod, utcToday } from '../src/domain/reporting-period.ts'

describe('the operators’ kept latest submission per RTO and jurisdiction', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  const kept = async () =>
    (
      await sql<{ rto_id: string; jurisdiction: string; at: string }>`
        SELECT rto_id, jurisdiction, last_submitted_at::text AS at FROM rto_jurisdiction_submission
         ORDER BY rto_id, jurisdiction`.execute(t.service.database.db)
    ).rows
  const fresh = async () =>
    (
      await sql<{ rto_id: string; jurisdiction: string; at: string }>`
        SELECT rto_id, jurisdiction, max(last_submitted_at)::text AS at FROM reporting_period_submission
         GROUP BY rto_id, jurisdiction ORDER BY rto_id, jurisdiction`.execute(t.service.database.db)
    ).rows
  const assertNoDrift = async (after: string) => assert.deepEqual(await kept(), await fresh(), after)

  it('equals a fresh max over the submission marks after uploads, submits and voids, and the operators’ reads follow it', async () => {
    const nsw = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const vic = new Reporter(t.baseUrl, await t.token('demo-rto-1'), 'VIC')
    const second = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
    const rto = (
      await t.service.database.db
        .selectFrom('api_client')
        .select('rto_id')
        .where('client_id', '=', 'demo-rto-1')
        .executeTakeFirstOrThrow()
    ).rto_id
    const before = (await kept()).length

    await nsw.submitted(await minimalUnitRecord())
    await assertNoDrift('after a submit')
    assert.equal((await kept()).length, before + 1, 'one row for the RTO under NSW')

    // An upload not submitted leaves the marks and the kept row as they were.
    const untouched = await kept()
    await nsw.batchWith(await minimalUnitRecord())
    assert.deepEqual(await kept(), untouched, 'an upload alone changes nothing')
    await assertNoDrift('after an upload')

    // Another jurisdiction of the same RTO: its own row.
    await vic.submitted(await minimalUnitRecord())
    await assertNoDrift('after a submit under VIC')

    // A void (Standard workflow 3): the location and its enrolment voided, submitted.
    const w = await world()
    await nsw.submitted([
      ...uploadsOf(w, 'student', 'location', 'subject'),
      { segment: 'subjectoffering', body: { ...w.subjectOffering, deliveryLocationUID: undefined } },
      ...uploadsOf(w, 'subjectEnrolment'),
    ])
    const beforeVoid = (await kept()).find((row) => row.rto_id === rto && row.jurisdiction === 'NSW')!.at
    await nsw.submitted([
      { segment: 'deliverylocation', body: voided(w.location, 'remove_duplicate_record') },
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_orphaned_record') },
    ])
    const afterVoid = (await kept()).find((row) => row.rto_id === rto && row.jurisdiction === 'NSW')!.at
    assert.ok(afterVoid > beforeVoid, `a void moves the RTO's latest submission on (${beforeVoid} → ${afterVoid})`)
    await assertNoDrift('after a void')

    await second.submitted(await minimalUnitRecord())
    await assertNoDrift('after a second RTO submits')

    // The operators' reads say what a fresh count says.
    const freshRows = await fresh()
    const latestOf = (r: string) =>
      freshRows
        .filter((row) => row.rto_id === r)
        .map((row) => new Date(row.at).toISOString())
        .sort()
        .at(-1)
    const directory = await rtoDirectory(t.service.database.db, rto, 1)
    const entry = directory.results.find((e) => e.rto === rto)!
    assert.equal(entry.lastSubmittedAt, latestOf(rto))

    const period = currentReportingPeriod(utcToday())
    const marks = (
      await sql<{ rto_id: string }>`
        SELECT rto_id FROM reporting_period_submission WHERE jurisdiction = 'NSW' AND reporting_period = ${period}`.execute(
        t.service.database.db,
      )
    ).rows
    const view = await collectionAtAGlance(t.service.database.db, 'NSW', period)
    const declared = (
      await sql<{ rto_id: string }>`SELECT DISTINCT rto_id FROM declaration WHERE jurisdiction = 'NSW'`.execute(
        t.service.database.db,
      )
    ).rows.map((row) => row.rto_id)
    const reporting = [
      ...new Set([...freshRows.filter((row) => row.jurisdiction === 'NSW').map((row) => row.rto_id), ...declared]),
    ].sort()
    assert.deepEqual(
      view.rows.results.map((row) => row.rto),
      reporting,
      'every RTO reporting under NSW, by a fresh count',
    )
    assert.equal(view.totals.rtos, reporting.length)
    assert.equal(view.totals.submitted, marks.length)
  })
})
