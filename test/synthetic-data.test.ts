// The synthetic data generator (npm run seed:synthetic): a believable held dataset that the
// reconciliation endpoints then serve, for several RTOs, with voids.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Reporter, startTestService, V1, type TestService } from './support/index.ts'
import { seedSynthetic } from '../src/cli/synthetic-data.ts'

describe('synthetic held dataset', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ service: { workers: false } })
  })
  after(() => t.close())

  it('seed:synthetic holds students with enrolments for each RTO, voids some, and reconciliation serves them', async () => {
    const summary = await seedSynthetic(t.service.database.db, {
      students: 80,
      rtos: ['90001', '90002'],
      jurisdiction: 'NSW',
      batchRecords: 100,
      busyStudentEnrolments: 12,
    })
    // Each RTO: 16 shared records (pools of 2 locations, 2 programs, 2 program offerings, 2 subjects and
    // 8 subject offerings for 80 students), and per student the student, a program enrolment and 3
    // subject enrolments (the first RTO's busy student 12): 425 and 416. Subject enrolment number 199
    // (student 66's second) is voided in each, a version more: 426 + 417 = 843 rows, 2 voided.
    assert.equal(summary.records, 843)
    assert.equal(summary.voided, 2)
    const byRto = await t.service.database.db
      .selectFrom('held_record')
      .select(['rto_id', (eb) => eb.fn.countAll<string>().as('count')])
      .groupBy('rto_id')
      .orderBy('rto_id')
      .execute()
    assert.deepEqual(
      byRto.map((row) => [row.rto_id, Number(row.count)]),
      [
        ['90001', 426],
        ['90002', 417],
      ],
    )
    const voids = await t.service.database.db
      .selectFrom('held_record')
      .select('resource_uid')
      .where('state_in_submission', '=', 'Voided in submission')
      .execute()
    assert.equal(voids.length, summary.voided)
    const r = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const search = await r.request(
      'GET',
      `${V1}/search-by-period?resourceType=Student&reportingPeriods=202601,202602,202603,202604&pageSize=500`,
    )
    assert.equal(search.status, 200)
    assert.equal(search.json.numberOfResults, 80)
    const related = await r.request('GET', `${V1}/student/${summary.busyStudentUID}/related-resources?pageSize=500`)
    // The busy student's 12 subject enrolments are numbers 0 to 11, none of them voided.
    assert.equal(related.json.results.filter((item: any) => item.resourceType === 'SubjectEnrolment').length, 12)
    // The per-day counts search-by-period totals and pages by agree with the items, after voids too.
    const { sql } = await import('kysely')
    const mismatches = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM (
        SELECT rto_id, resource_type, student_activity_date, count(*)::int AS items FROM reconciliation_item
         WHERE student_activity_date IS NOT NULL GROUP BY 1, 2, 3) AS actual
      FULL JOIN reconciliation_day_count c USING (rto_id, resource_type, student_activity_date)
     WHERE actual.items IS DISTINCT FROM c.items`.execute(t.service.database.db)
    assert.equal(mismatches.rows[0]!.n, '0')
    const deep = await r.request(
      'GET',
      `${V1}/search-by-period?resourceType=SubjectEnrolment&reportingPeriods=202601,202602,202603,202604&pageSize=7&pageNumber=20`,
    )
    const whole = await r.request(
      'GET',
      `${V1}/search-by-period?resourceType=SubjectEnrolment&reportingPeriods=202601,202602,202603,202604&pageSize=500`,
    )
    assert.deepEqual(deep.json.results, whole.json.results.slice(133, 140))
    const voided = await r.request('POST', `${V1}/uid-match`, {
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202601',
      resourceUIDs: [voids[0]!.resource_uid],
    })
    assert.equal(voided.json.results[0].submissionDateTime, null)
  })
})
