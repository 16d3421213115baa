// When a declaration of a reporting period is due (spec: Limits, Declaration due): a declaration within
// one month after the end of the period; a nil activity report before one month after the start of
// the next period. The collection calendar (calendar.service.ts) may replace the rule for a period
// and jurisdiction, and an RTO may be given an extension. Lateness is reported, never blocked.
import { addMonths, firstDayOf, lastDayOf, nextPeriodOf } from '../../domain/reporting-period.ts'

export type DeclarationType = 'Declaration' | 'Nil_activity_report'

/** The spec's due dates already worked out, by period and type (declarationDueDate). */
const ruleDueDates = new Map<string, string>()

/** The last day, YYYY-MM-DD, on which a declaration of the type is on time for the period, by the spec's rule. */
export function declarationDueDate(period: number, type: DeclarationType): string {
  // The operators' collection asks this of every RTO of every period shown (thousands of calls a view,
  // each a few Date computations): the answer depends on the two arguments alone, so it is kept.
  const key = `${period}:${type}`
  let due = ruleDueDates.get(key)
  if (due === undefined) {
    if (ruleDueDates.size >= 1000) ruleDueDates.clear()
    due = ruleDueDateOf(period, type)
    ruleDueDates.set(key, due)
  }
  return due
}

function ruleDueDateOf(period: number, type: DeclarationType): string {
  if (type === 'Declaration') return addMonths(lastDayOf(period), 1)
  const limit = new Date(`${addMonths(firstDayOf(nextPeriodOf(period)), 1)}T00:00:00Z`) // "before" this day
  limit.setUTCDate(limit.getUTCDate() - 1)
  return limit.toISOString().slice(0, 10)
}

/** Where a due date comes from: the spec's rule, the date operators set for the period, or the RTO's extension. */
export type DueDateSource = 'rule' | 'calendar' | 'extension'

export interface DueDate {
  dueDate: string
  source: DueDateSource
}

/**
 * The due date that applies: the RTO's extension, else the date set for the period and jurisdiction
 * (for both types of declaration), else the spec's rule for the type.
 */
export function applicableDueDate(
  period: number,
  type: DeclarationType,
  set: string | undefined,
  extension: string | undefined,
): DueDate {
  if (extension !== undefined) return { dueDate: extension, source: 'extension' }
  if (set !== undefined) return { dueDate: set, source: 'calendar' }
  return { dueDate: declarationDueDate(period, type), source: 'rule' }
}

/** Whether a declaration made on the given day (UTC) is late: after the due date that applies to it. */
export function isLate(declaredOn: string, dueDate: string): boolean {
  return declaredOn > dueDate
}

/** Whether a period's declaration is overdue: none has been made and its due date has passed. Shown, never enforced. */
export function isOverdue(declared: boolean, dueDate: string, today: string): boolean {
  return !declared && today > dueDate
}

/** Whole days from `today` to `dueDate` (both YYYY-MM-DD): negative once it has passed. */
export function daysUntil(dueDate: string, today: string): number {
  return Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000)
}
