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
import { daysUntil, type DueDateSource } from './due-dates.ts'
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

/**
 * Records the due-soon and overdue notices that are due today and not recorded yet. Four reads find
 * them (the RTOs' reported periods, the current declarations, the calendar, the notices recorded
 * before), so a rerun that has nothing to add writes nothing; the new ones are written one
 * transaction per RTO.
 */
export async function recordDueNotices(
  db: Db,
  options: { dueSoonDays: number; today?: string },
): Promise<DueNoticesOutcome> {
  const today = options.today ?? utcToday()
  const [reported, declared] = await Promise.all([
    reportedPeriodsAcrossRtos(db, FIRST_REPORTING_PERIOD),
    calendar.declaredAcrossRtos(db, FIRST_REPORTING_PERIOD),
  ])
  const key = (...parts: (string | number)[]) => parts.join('/')
  const isDeclared = new Set(declared.map((row) => key(row.rto_id, row.jurisdiction, row.reporting_period)))
  const waiting = reported.filter((row) => !isDeclared.has(key(row.rto, row.jurisdiction, row.reportingPeriodNumber)))
  const periods = [...new Set(waiting.map((row) => row.reportingPeriodNumber))]
  const [dueDates, recorded] = await Promise.all([dueDatesFor(db, periods), calendar.noticesOf(db, periods)])
  const byRto = new Map<string, Notice[]>()
  for (const { rto, jurisdiction, reportingPeriodNumber: period } of waiting) {
    const due = dueDates.of(rto, jurisdiction, period, 'Declaration')
    const days = daysUntil(due.dueDate, today)
    const kind = days < 0 ? 'overdue' : days <= options.dueSoonDays ? 'due-soon' : undefined
    if (!kind || recorded.has(key(rto, jurisdiction, period, kind, due.dueDate))) continue
    const notices = byRto.get(rto) ?? []
    notices.push({ jurisdiction, period, kind, dueDate: due.dueDate, source: due.source, days })
    byRto.set(rto, notices)
  }
  const outcome: DueNoticesOutcome = { dueSoon: 0, overdue: 0 }
  for (const [rto, notices] of byRto) {
    const added = await db.transaction().execute(async (tx) => {
      // Declared since the reads above: nothing to say about those.
      const nowDeclared = await repo.declarationsOf(
        tx,
        rto,
        [...new Set(notices.map((n) => n.period))],
        undefined,
        false,
      )
      const written: Notice[] = []
      for (const notice of notices) {
        const { jurisdiction, period } = notice
        if (nowDeclared.some((d) => d.jurisdiction === jurisdiction && d.reporting_period === period)) continue
        if (!(await calendar.recordNotice(tx, { rto, ...notice }))) continue // another run recorded it
        written.push(notice)
      }
      // The events last, in one go: the RTO's event number is locked from the first until the commit.
      for (const { jurisdiction, period, kind, dueDate, source, days } of written)
        await recordEvent(tx, {
          rto,
          type: kind === 'overdue' ? 'au.gov.vetrs.declaration.overdue' : 'au.gov.vetrs.declaration.due-soon',
          subject: `reporting-period/${jurisdiction}/${period}/declaration`,
          jurisdiction,
          period,
          data: {
            declarationDueDate: dueDate,
            dueDateSource: source,
            ...(kind === 'overdue' ? { daysOverdue: -days } : { daysLeft: days }),
          },
        })
      return written
    })
    for (const notice of added) outcome[notice.kind === 'overdue' ? 'overdue' : 'dueSoon']++
  }
  return outcome
}

interface Notice {
  jurisdiction: string
  period: number
  kind: 'due-soon' | 'overdue'
  dueDate: string
  source: DueDateSource
  days: number
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
