// Due-date notices (issue 33): a daily job (and one run when a worker process starts) that records
// `declaration.due-soon` when an RTO's declaration of a period is due within DECLARATION_DUE_SOON_DAYS
// and `declaration.overdue` once its due date has passed, for every RTO that submitted data touching
// the period under the jurisdiction and has not declared it. The due date is the calendar's, with the
// RTO's extension. Each notice is a row of declaration_due_notice keyed by RTO, jurisdiction, period,
// kind and due date, inserted with its event in one transaction: a rerun (a redelivered job, a second
// process starting) adds nothing, and an extension that moves the due date gives notices of its own.
import type { Db } from '../../platform/db/database.ts'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { FIRST_REPORTING_PERIOD, utcToday } from '../../domain/reporting-period.ts'
import { reportedPeriodsAcrossRtos } from '../holdings/index.ts'
import { recordEvent } from '../events/index.ts'
import { daysUntil } from './due-dates.ts'
import { dueDatesFor } from './calendar.service.ts'
import * as calendar from './calendar.repo.ts'
import * as repo from './declarations.repo.ts'

export interface DueNoticesData {
  dueSoonDays: number
}

export interface DueNoticesOutcome {
  dueSoon: number
  overdue: number
}

/** Records the due-soon and overdue notices that are due today and not recorded yet. */
export async function recordDueNotices(
  db: Db,
  options: { dueSoonDays: number; today?: string },
): Promise<DueNoticesOutcome> {
  const today = options.today ?? utcToday()
  const [reported, declared] = await Promise.all([
    reportedPeriodsAcrossRtos(db, FIRST_REPORTING_PERIOD),
    calendar.declaredAcrossRtos(db, FIRST_REPORTING_PERIOD),
  ])
  const key = (rto: string, jurisdiction: string, period: number) => `${rto}/${jurisdiction}/${period}`
  const isDeclared = new Set(declared.map((row) => key(row.rto_id, row.jurisdiction, row.reporting_period)))
  const waiting = reported.filter((row) => !isDeclared.has(key(row.rto, row.jurisdiction, row.reportingPeriodNumber)))
  const dueDates = await dueDatesFor(db, [...new Set(waiting.map((row) => row.reportingPeriodNumber))])
  const outcome: DueNoticesOutcome = { dueSoon: 0, overdue: 0 }
  for (const { rto, jurisdiction, reportingPeriodNumber: period } of waiting) {
    const due = dueDates.of(rto, jurisdiction, period, 'Declaration')
    const days = daysUntil(due.dueDate, today)
    const kind = days < 0 ? 'overdue' : days <= options.dueSoonDays ? 'due-soon' : undefined
    if (!kind) continue
    const recorded = await db.transaction().execute(async (tx) => {
      // Declared since the read above: nothing to say.
      if ((await repo.declarationsOf(tx, rto, [period], jurisdiction, false)).length > 0) return false
      if (!(await calendar.recordNotice(tx, { rto, jurisdiction, period, kind, dueDate: due.dueDate }))) return false
      await recordEvent(tx, {
        rto,
        type: kind === 'overdue' ? 'au.gov.vetrs.declaration.overdue' : 'au.gov.vetrs.declaration.due-soon',
        subject: `reporting-period/${jurisdiction}/${period}/declaration`,
        jurisdiction,
        period,
        data: {
          declarationDueDate: due.dueDate,
          dueDateSource: due.source,
          ...(kind === 'overdue' ? { daysOverdue: -days } : { daysLeft: days }),
        },
      })
      return true
    })
    if (recorded) outcome[kind === 'overdue' ? 'overdue' : 'dueSoon']++
  }
  return outcome
}

export const DUE_NOTICES_JOB = 'declaration-due-notices'

export function dueNoticesJob(db: Db, dueSoonDays: number): JobDefinition<DueNoticesData> {
  return {
    name: DUE_NOTICES_JOB,
    schedule: { cron: '7 0 * * *', data: { dueSoonDays } },
    async handle(data) {
      await recordDueNotices(db, { dueSoonDays: data.dueSoonDays })
    },
  }
}
