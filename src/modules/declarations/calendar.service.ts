// The collection calendar (issue 32 item 8): the due date that applies to an RTO's declaration of a
// period under a jurisdiction (its extension, else the date operators set for the period, else the
// spec's rule), and the operators' use cases that set due dates and grant or withdraw extensions.
// Every reader of a due date in the service (the declarations listing and records, the collection
// at a glance, the console's task list, the due-date notices) goes through dueDatesFor.
import type { Db, Executor } from '../../platform/db/database.ts'
import { isCalendarDate } from '../../domain/calendar.ts'
import { jurisdictions } from '../../domain/jurisdictions.ts'
import {
  currentReportingPeriod,
  FIRST_REPORTING_PERIOD,
  lastDayOf,
  nextPeriodOf,
  utcToday,
} from '../../domain/reporting-period.ts'
import { applicableDueDate, declarationDueDate, type DeclarationType, type DueDate } from './due-dates.ts'
import * as calendar from './calendar.repo.ts'

/** The due dates of a set of periods, read once: `of` answers for any RTO and jurisdiction of the read. */
export interface DueDates {
  of(rto: string, jurisdiction: string, period: number, type: DeclarationType): DueDate
  /** The extensions of the read: the only RTOs whose due date differs from their period's. */
  extensions: readonly { rto: string; jurisdiction: string; period: number; dueDate: string }[]
}

const key = (...parts: (string | number)[]) => parts.join('/')

/**
 * The due dates of these periods, for one RTO or (an operator's read, the notices job) every RTO, of
 * one jurisdiction or all: two reads whatever the number of rows asked about.
 */
export async function dueDatesFor(
  db: Executor,
  periods: number[],
  filter: { rto?: string | undefined; jurisdiction?: string | undefined } = {},
): Promise<DueDates> {
  const [set, extensions] = await Promise.all([
    calendar.dueDatesOf(db, periods, filter.jurisdiction),
    calendar.extensionsOf(db, periods, filter),
  ])
  const setOf = new Map(set.map((row) => [key(row.jurisdiction, row.reporting_period), row.due_date]))
  const extensionOf = new Map(
    extensions.map((row) => [key(row.rto_id, row.jurisdiction, row.reporting_period), row.due_date]),
  )
  return {
    extensions: extensions.map((row) => ({
      rto: row.rto_id,
      jurisdiction: row.jurisdiction,
      period: row.reporting_period,
      dueDate: row.due_date,
    })),
    of: (rto, jurisdiction, period, type) =>
      applicableDueDate(
        period,
        type,
        setOf.get(key(jurisdiction, period)),
        extensionOf.get(key(rto, jurisdiction, period)),
      ),
  }
}

/**
 * The due date that applies to one RTO's declaration of a period, where it comes from and, when it is
 * the RTO's extension, the date it replaced (the set date or the rule): people are told both.
 */
export async function dueDateOf(
  db: Executor,
  rto: string,
  jurisdiction: string,
  period: number,
  type: DeclarationType,
): Promise<DueDate & { extendedFrom?: string }> {
  const dates = await dueDatesFor(db, [period], { rto, jurisdiction })
  const due = dates.of(rto, jurisdiction, period, type)
  if (due.source !== 'extension') return due
  // No RTO has the empty code: what applies without any extension.
  return { ...due, extendedFrom: dates.of('', jurisdiction, period, type).dueDate }
}

/** A form field the operator has to correct, and what to do. */
export interface CalendarProblem {
  field: 'jurisdiction' | 'period' | 'rto' | 'dueDate' | 'reason'
  message: string
}

/** The calendar form's fields were refused: each problem names its field (the GOV.UK error pattern). */
export class CalendarInputError extends Error {
  readonly problems: CalendarProblem[]
  constructor(problems: CalendarProblem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '))
    this.problems = problems
  }
}

export const MAX_REASON_LENGTH = 500
const RTO_ID = /^[A-Za-z0-9]{1,10}$/
const PERIOD_CODE = /^\d{4}0[1-4]$/

/** The periods the calendar manages: from the first supported one to four periods after the current one. */
export function calendarPeriods(today = utcToday()): number[] {
  let last = currentReportingPeriod(today)
  for (let i = 0; i < 4; i++) last = nextPeriodOf(last)
  const periods: number[] = []
  for (let p = FIRST_REPORTING_PERIOD; p <= last; p = nextPeriodOf(p)) periods.push(p)
  return periods.reverse()
}

export interface CalendarInput {
  jurisdiction?: string | undefined
  period?: string | undefined
  dueDate?: string | undefined
  reason?: string | undefined
}

function checked(input: CalendarInput, problems: CalendarProblem[]) {
  const jurisdiction = input.jurisdiction ?? ''
  if (!(jurisdictions as readonly string[]).includes(jurisdiction))
    problems.push({ field: 'jurisdiction', message: 'Choose a jurisdiction' })
  const periodText = input.period ?? ''
  const period = Number(periodText)
  if (!PERIOD_CODE.test(periodText) || !calendarPeriods().includes(period))
    problems.push({ field: 'period', message: 'Choose a reporting period' })
  const reason = (input.reason ?? '').trim()
  if (reason === '') problems.push({ field: 'reason', message: 'Enter the reason for the due date' })
  else if (reason.length > MAX_REASON_LENGTH)
    problems.push({ field: 'reason', message: `The reason must be ${MAX_REASON_LENGTH} characters or fewer` })
  const dueDate = input.dueDate ?? ''
  if (dueDate === '') problems.push({ field: 'dueDate', message: 'Enter the due date' })
  else if (!isCalendarDate(dueDate))
    problems.push({ field: 'dueDate', message: 'The due date must be a real date, written as 2027-01-31' })
  return { jurisdiction, period, reason, dueDate }
}

/** Sets the due date of a period under a jurisdiction, for every RTO without an extension. */
export async function setPeriodDueDate(
  db: Db,
  input: CalendarInput,
  by: string,
): Promise<{ jurisdiction: string; period: number; dueDate: string }> {
  const problems: CalendarProblem[] = []
  const row = checked(input, problems)
  if (!problems.some((p) => p.field === 'period' || p.field === 'dueDate') && row.dueDate <= lastDayOf(row.period))
    problems.push({
      field: 'dueDate',
      message: `The due date must be after the reporting period ends (${lastDayOf(row.period)})`,
    })
  if (problems.length > 0) throw new CalendarInputError(problems)
  await calendar.setDueDate(db, { ...row, by })
  return row
}

/** The spec's rule applies to the period again; whether a date had been set. */
export function clearPeriodDueDate(db: Db, jurisdiction: string, period: number): Promise<boolean> {
  return calendar.clearDueDate(db, jurisdiction, period)
}

/**
 * Gives an RTO a later due date for a period under a jurisdiction. It must be later than the date that
 * applies without it (the set date or the rule), so an extension never brings a due date forward.
 */
export async function grantExtension(
  db: Db,
  input: CalendarInput & { rto?: string | undefined },
  by: string,
): Promise<{ rto: string; jurisdiction: string; period: number; dueDate: string }> {
  const problems: CalendarProblem[] = []
  const rto = input.rto ?? ''
  if (!RTO_ID.test(rto)) problems.push({ field: 'rto', message: 'Enter the RTO’s code: 1 to 10 letters or digits' })
  const row = checked(input, problems)
  if (!problems.some((p) => ['jurisdiction', 'period', 'dueDate'].includes(p.field))) {
    const without = (await dueDatesFor(db, [row.period], { jurisdiction: row.jurisdiction })).of(
      '',
      row.jurisdiction,
      row.period,
      'Declaration',
    )
    if (row.dueDate <= without.dueDate)
      problems.push({
        field: 'dueDate',
        message: `An extension must be later than the period’s due date (${without.dueDate})`,
      })
  }
  if (problems.length > 0) throw new CalendarInputError(problems)
  await calendar.grantExtension(db, { ...row, rto, by })
  return { ...row, rto }
}

/** Withdraws an RTO's extension (the period's due date applies again); whether there was one. */
export function withdrawExtension(db: Db, rto: string, jurisdiction: string, period: number): Promise<boolean> {
  return calendar.withdrawExtension(db, rto, jurisdiction, period)
}

export interface CalendarPeriod {
  period: number
  /** The spec's rule for a declaration and for a nil activity report. */
  rule: { declaration: string; nilActivityReport: string }
  /** The date operators set, replacing the rule for both types; undefined: the rule applies. */
  set: { dueDate: string; reason: string; by: string; at: string } | undefined
}

export interface CalendarExtension {
  rto: string
  jurisdiction: string
  period: number
  dueDate: string
  reason: string
  by: string
  at: string
}

/** A jurisdiction's calendar (operators): each period's due dates, and the extensions granted under it. */
export async function calendarOf(
  db: Db,
  jurisdiction: string,
  periods = calendarPeriods(),
): Promise<{ periods: CalendarPeriod[]; extensions: CalendarExtension[] }> {
  const [set, extensions] = await Promise.all([
    calendar.dueDatesOf(db, periods, jurisdiction),
    calendar.extensionsOf(db, periods, { jurisdiction }),
  ])
  return {
    periods: periods.map((period) => {
      const row = set.find((s) => s.reporting_period === period)
      return {
        period,
        rule: {
          declaration: declarationDueDate(period, 'Declaration'),
          nilActivityReport: declarationDueDate(period, 'Nil_activity_report'),
        },
        set: row && {
          dueDate: row.due_date,
          reason: row.reason,
          by: row.set_by,
          at: new Date(row.set_at).toISOString(),
        },
      }
    }),
    extensions: extensions.map((row) => ({
      rto: row.rto_id,
      jurisdiction: row.jurisdiction,
      period: row.reporting_period,
      dueDate: row.due_date,
      reason: row.reason,
      by: row.granted_by,
      at: new Date(row.granted_at).toISOString(),
    })),
  }
}
