// The collection calendar and the due-date notices (issue 32 item 8, issue 33). A period's due date set
// by operators and an RTO's extension are what the API's due dates, late flags and late messages
// follow; the daily notices job records declaration.due-soon and declaration.overdue once per RTO,
// jurisdiction, period, kind and due date (a rerun adds none), none for a declared period, and an
// extension moves them. Through a real server on the test's database (PGlite or PostgreSQL).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  CalendarInputError,
  grantExtension,
  recordDueNotices,
  setPeriodDueDate,
} from '../src/modules/declarations/index.ts'
import { addMonths, lastDayOf, utcToday } from '../src/domain/reporting-period.ts'
import {
  declarationBody,
  minimalUnitRecord,
  newRto,
  PERIOD,
  startTestService,
  V1,
  waitFor,
  type Rto,
  type TestService,
} from './support/index.ts'

const addDays = (day: string, days: number) => {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

async function dueRow(rto: Rto, period: number, jurisdiction: string): Promise<Record<string, any>> {
  const response = await rto.reporter.request(
    'GET',
    `${V1}/declaration?reportingPeriodNumber=${period}&jurisdiction=${jurisdiction}`,
  )
  assert.equal(response.status, 200, response.text)
  assert.equal(response.json.results.length, 1, response.text)
  return response.json.results[0]
}

/** The RTO's due-date events in its change feed, as [kind, dueDate, source, days]. */
async function notices(rto: Rto): Promise<[string, string, string, number][]> {
  const response = await rto.reporter.request('GET', `${V1}/events?after=0&pageSize=500`)
  assert.equal(response.status, 200, response.text)
  return response.json.events
    .filter((e: any) => /declaration\.(due-soon|overdue)$/.test(e.type))
    .map((e: any) => {
      assert.equal(e.subject, `reporting-period/${e.jurisdiction}/${e.reportingperiod}/declaration`)
      return [
        e.type.replace('au.gov.vetrs.declaration.', ''),
        e.data.declarationDueDate,
        e.data.dueDateSource,
        e.data.daysLeft ?? -e.data.daysOverdue,
      ]
    })
}

describe('the collection calendar and due-date notices', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t?.close())

  it("a period's set due date and an RTO's extension are the API's due date, late flag and message", async () => {
    // VIC 202603 ended before today; by the rule it is due one month after its end, already passed.
    const period = 202603
    const db = t.service.database.db
    const [extended, other] = await Promise.all([newRto(t), newRto(t)])
    await extended.assessor.assess(period, 'VIC')
    await other.assessor.assess(period, 'VIC')
    const rule = addMonths(lastDayOf(period), 1)
    assert.equal((await dueRow(extended, period, 'VIC')).declarationDueDate, rule)

    const set = addDays(lastDayOf(period), 10)
    await setPeriodDueDate(db, { jurisdiction: 'VIC', period: String(period), dueDate: set, reason: 'Test' }, 'Op')
    assert.equal((await dueRow(extended, period, 'VIC')).declarationDueDate, set)
    assert.equal((await dueRow(other, period, 'VIC')).declarationDueDate, set)
    // Another jurisdiction's period keeps the rule.
    assert.equal((await dueRow(extended, period, 'SA')).declarationDueDate, rule)

    const later = addDays(utcToday(), 30)
    const refusal = await grantExtension(
      db,
      { rto: extended.rto.slice(0, 10), jurisdiction: 'VIC', period: String(period), dueDate: set, reason: '' },
      'Op',
    ).catch((error: unknown) => error)
    assert.ok(refusal instanceof CalendarInputError)
    assert.deepEqual(
      refusal.problems.map((p) => p.field),
      ['reason', 'dueDate'],
      'an extension not later than the due date, and no reason: both said',
    )
    // newRto's codes are 9 characters: an RTO code the calendar accepts.
    await grantExtension(
      db,
      { rto: extended.rto, jurisdiction: 'VIC', period: String(period), dueDate: later, reason: 'Flood' },
      'Op',
    )
    assert.equal((await dueRow(extended, period, 'VIC')).declarationDueDate, later)
    assert.equal((await dueRow(other, period, 'VIC')).declarationDueDate, set, 'an extension is the RTO’s own')

    const body = declarationBody({ reportingPeriodNumber: period, jurisdiction: 'VIC' })
    const onTime = await extended.assessor.declare(body)
    assert.equal(onTime.status, 200, onTime.text)
    assert.deepEqual([onTime.json.declaration.declarationDueDate, onTime.json.declaration.isLate], [later, false])
    assert.doesNotMatch(onTime.json.message, /late/)
    const late = await other.assessor.declare(body)
    assert.equal(late.status, 200, late.text)
    assert.deepEqual([late.json.declaration.declarationDueDate, late.json.declaration.isLate], [set, true])
    assert.match(late.json.message, new RegExp(`after its due date \\(${set}\\); the RTO may be contacted`))
    // The listing's declaration record says the same.
    assert.equal((await dueRow(extended, period, 'VIC')).declaration.isLate, false)
    assert.equal((await dueRow(other, period, 'VIC')).declaration.isLate, true)
  })

  it('due soon, then overdue, each recorded once (a rerun adds none); none for a declared period; an extension moves them', async () => {
    const db = t.service.database.db
    const [waiting, declared, extended] = await Promise.all([newRto(t), newRto(t), newRto(t)])
    for (const rto of [waiting, declared, extended]) await rto.reporter.submitted(await minimalUnitRecord())
    await declared.assessor.assess()
    assert.equal((await declared.assessor.declare(declarationBody())).status, 200)
    const due = addMonths(lastDayOf(PERIOD), 1) // NSW 202604 by the rule
    const run = (today: string) => recordDueNotices(db, { dueSoonDays: 7, today })

    await run(addDays(due, -8))
    assert.deepEqual(await notices(waiting), [], 'eight days before: not yet')
    await run(addDays(due, -7))
    await run(addDays(due, -6))
    assert.deepEqual(await notices(waiting), [['due-soon', due, 'rule', 7]], 'once, the first day it is due soon')
    await run(addDays(due, 0))
    assert.equal((await notices(waiting)).length, 1, 'the due date itself is not overdue')
    const later = addDays(due, 60)
    await grantExtension(
      db,
      { rto: extended.rto, jurisdiction: 'NSW', period: String(PERIOD), dueDate: later, reason: 'Illness' },
      'Op',
    )
    await run(addDays(due, 1))
    await run(addDays(due, 2))
    assert.deepEqual(await notices(waiting), [
      ['due-soon', due, 'rule', 7],
      ['overdue', due, 'rule', -1],
    ])
    assert.deepEqual(await notices(declared), [], 'a declared period has no notices')
    assert.deepEqual(
      await notices(extended),
      [['due-soon', due, 'rule', 7]],
      'its due-soon came before the extension; no overdue after it',
    )
    await run(addDays(later, -3))
    await run(addDays(later, 5))
    await run(addDays(later, 6))
    assert.deepEqual(await notices(extended), [
      ['due-soon', due, 'rule', 7],
      ['due-soon', later, 'extension', 3],
      ['overdue', later, 'extension', -5],
    ])
    assert.equal((await notices(waiting)).length, 2, 'reruns added nothing')
    const kept = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM declaration_due_notice WHERE rto_id = ${waiting.rto}`.execute(db)
    assert.equal(kept.rows[0]!.n, 2)
  })

  it('the notices job is registered and runs once when the workers start', async () => {
    await waitFor('the on-start notices job completed', async () => {
      const rows = await sql<{ state: string }>`
        SELECT state::text AS state FROM pgboss.job WHERE name = 'declaration-due-notices'`.execute(
        t.service.database.db,
      )
      return rows.rows.some((row) => row.state === 'completed') ? true : undefined
    })
    const scheduled = await sql<{ cron: string }>`
      SELECT cron FROM pgboss.schedule WHERE name = 'declaration-due-notices'`.execute(t.service.database.db)
    assert.deepEqual(
      scheduled.rows.map((row) => row.cron),
      ['7 0 * * *'],
    )
  })
})
