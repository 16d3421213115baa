// The operators' collection counted without a standing per RTO and period (issue 32, "Performance":
// at 4,000 RTOs the page made 28,000 standings per view for its totals and chart). collectionAcrossRtos
// counts the marks and current declarations in the database and works out the overdue count from the
// period's due date and the extensions; it must give exactly what counting periodsAcrossRtos' standings
// gives, and the same standings for a page, with declarations (current and superseded), RTOs that only
// declared, extensions before and after today, to declared and undeclared RTOs, and a set due date.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'
import { collectionAcrossRtos, periodsAcrossRtos } from '../src/modules/declarations/index.ts'
import { collectionOverPeriods } from '../src/modules/console/operator.service.ts'

const PAST = 202501 // due by the rule on 2025-04-30: passed
const SET = 202502 // a due date set by operators, passed
const FUTURE = 203001 // not yet due
const PERIODS = [PAST, SET, FUTURE]
const rto = (n: number) => `96${String(n).padStart(3, '0')}`

describe('the collection’s totals counted in the database', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
    const db = t.service.database.db
    for (const period of PERIODS)
      await sql`
        INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
        SELECT '96' || lpad(i::text, 3, '0'), 'TAS', ${period}, now() - (i || ' minutes')::interval, i
          FROM generate_series(1, ${period === FUTURE ? 60 : 100}) AS i`.execute(db)
    await sql`
      INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
      SELECT rto_id, jurisdiction, max(last_submitted_at) FROM reporting_period_submission
       WHERE jurisdiction = 'TAS' GROUP BY 1, 2`.execute(db)
    const declare = (n: number, period: number, current = true, type = 'Declaration') =>
      sql`
        INSERT INTO declaration (rto_id, declaration_id, jurisdiction, reporting_period, declaration_type, rto_user_name,
                                 rto_user_email_address, declared_by_client, declared_at, assessment_run_id, is_current)
        VALUES (${rto(n)}, ${randomUUID()}, 'TAS', ${period}, ${type}, 'Someone', 'someone@example.com', 'test', now(),
                ${randomUUID()}, ${current})`.execute(db)
    // Declared: RTOs 1 to 20 for the past period, 101 to 105 (no data at all) too; 106 only superseded.
    for (let n = 1; n <= 20; n++) await declare(n, PAST)
    for (let n = 101; n <= 105; n++) await declare(n, PAST)
    await declare(106, PAST, false)
    await declare(7, SET, true, 'Nil_activity_report')
    await declare(8, FUTURE)
    await sql`
      INSERT INTO collection_due_date (jurisdiction, reporting_period, due_date, reason, set_by)
      VALUES ('TAS', ${SET}, DATE '2025-09-01', 'test', 'test')`.execute(db)
    const extend = (n: number, period: number, date: string) =>
      sql`
        INSERT INTO declaration_extension (rto_id, jurisdiction, reporting_period, due_date, reason, granted_by)
        VALUES (${rto(n)}, 'TAS', ${period}, ${date}::date, 'test', 'test')`.execute(db)
    for (const n of [21, 22, 23, 24, 25, 3, 104]) await extend(n, PAST, '2031-01-31') // not overdue (or declared)
    for (const n of [26, 27, 28]) await extend(n, PAST, '2025-06-30') // still overdue
    for (const n of [30, 31, 32, 8]) await extend(n, FUTURE, '2025-06-30') // overdue before the period's date
    await extend(40, SET, '2031-01-31')
    await extend(200, PAST, '2031-01-31') // an RTO with no row: not counted
  })
  after(() => t.close())

  it('equal counting every standing, and a page’s standings are the same', async () => {
    const db = t.service.database.db
    const standings = await periodsAcrossRtos(db, 'TAS', PERIODS)
    for (const [offset, period] of [
      [0, PAST],
      [50, PAST],
      [100, FUTURE],
      [50, SET],
    ] as const) {
      const counted = await collectionAcrossRtos(db, 'TAS', PERIODS, { period, offset, limit: 50 })
      const all = standings.get(PERIODS[0]!)!
      assert.deepEqual(
        counted.rtos,
        all.map((s) => s.rto),
        'the same RTOs in the same order',
      )
      assert.equal(
        counted.rtos.length,
        106,
        'RTOs with data (100) and those that only declared (101 to 106, superseded too)',
      )
      for (const p of PERIODS) {
        const ofPeriod = standings.get(p)!
        assert.deepEqual(
          counted.totals.get(p),
          {
            submitted: ofPeriod.filter((s) => s.lastSubmittedAt !== null).length,
            declared: ofPeriod.filter((s) => s.declaration !== null).length,
            overdue: ofPeriod.filter((s) => s.overdue).length,
          },
          `totals of ${p}`,
        )
      }
      assert.deepEqual(
        counted.rows,
        standings.get(period)!.slice(offset, offset + 50),
        `page at ${offset} of ${period}`,
      )
    }
    // The numbers the planted data was made to give.
    const counted = await collectionAcrossRtos(db, 'TAS', PERIODS, { period: PAST, offset: 0, limit: 50 })
    assert.deepEqual(counted.totals.get(PAST), { submitted: 100, declared: 25, overdue: 106 - 25 - 5 })
    assert.deepEqual(counted.totals.get(FUTURE), { submitted: 60, declared: 1, overdue: 3 })
    assert.deepEqual(counted.totals.get(SET), { submitted: 100, declared: 1, overdue: 106 - 1 - 1 })
    // The console's collection: the first period's page, every period's totals.
    const views = await collectionOverPeriods(db, 'TAS', [PAST, FUTURE], 2)
    assert.equal(views.get(PAST)!.rows.results.length, 50)
    assert.deepEqual(
      views.get(PAST)!.rows.results.map((row) => row.rto),
      counted.rtos.slice(50, 100),
    )
    assert.equal(views.get(FUTURE)!.totals.overdue, 3)
    assert.equal(views.get(PAST)!.totals.rtos, 106)
  })
})
