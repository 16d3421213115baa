// When a declaration of a reporting period is due (spec: Limits, Declaration due): a declaration within
// one month after the end of the period; a nil activity report before one month after the start of
// the next period. Lateness is reported, never blocked.
import { addMonths, firstDayOf, lastDayOf, nextPeriodOf } from '../../domain/reporting-period.ts'

export type DeclarationType = 'Declaration' | 'Nil_activity_report'

/** The last day, YYYY-MM-DD, on which a declaration of the type is on time for the period. */
export function declarationDueDate(period: number, type: DeclarationType): string {
  if (type === 'Declaration') return addMonths(lastDayOf(period), 1)
  const limit = new Date(`${addMonths(firstDayOf(nextPeriodOf(period)), 1)}T00:00:00Z`) // "before" this day
  limit.setUTCDate(limit.getUTCDate() - 1)
  return limit.toISOString().slice(0, 10)
}

/** Whether a declaration made on the given day (UTC) is late: more than one month after the period ended. */
export function isLate(declaredOn: string, period: number, type: DeclarationType): boolean {
  return declaredOn > declarationDueDate(period, type)
}

/** Whether a period's declaration is overdue: none has been made and its due date has passed. Shown, never enforced. */
export function isOverdue(declared: boolean, dueDate: string, today: string): boolean {
  return !declared && today > dueDate
}
