// Reporting periods are calendar quarters written {CalendarYear}{Quarter}: 202601 is January to March
// 2026 (spec: search-by-period; Limits, supported reporting periods from 202601).
export const FIRST_REPORTING_PERIOD = 202601

/** The reporting period of a YYYY-MM-DD date. */
export function reportingPeriodOf(date: string): number {
  const year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  return year * 100 + Math.ceil(month / 3)
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Adds to `periods` the reporting period of every lifecycle entry's studentActivityDate in a record
 * body, as submit's SQL reads them (holdings.repo.ts, recordReportingPeriods): `lifecycle` when it is
 * an array, each entry's `studentActivityDate` when it is a YYYY-MM-DD text; anything else adds none.
 */
export function addActivityPeriods(body: unknown, periods: Set<number>): void {
  const lifecycle = (body as { lifecycle?: unknown } | null)?.lifecycle
  if (!Array.isArray(lifecycle)) return
  for (const entry of lifecycle) {
    const date = (entry as { studentActivityDate?: unknown } | null)?.studentActivityDate
    if (typeof date === 'string' && ISO_DATE.test(date)) periods.add(reportingPeriodOf(date))
  }
}

/** The first day of a reporting period, YYYY-MM-DD. */
export function firstDayOf(period: number): string {
  const quarter = period % 100
  return `${Math.floor(period / 100)}-${String((quarter - 1) * 3 + 1).padStart(2, '0')}-01`
}

/** Today in UTC as YYYY-MM-DD. */
export function utcToday(now = new Date()): string {
  return now.toISOString().slice(0, 10)
}

/** The reporting period today falls in: the latest one data can be assessed or declared for. */
export function currentReportingPeriod(today = utcToday()): number {
  return reportingPeriodOf(today)
}

/** The last day of a reporting period, YYYY-MM-DD. */
export function lastDayOf(period: number): string {
  const year = Math.floor(period / 100)
  const lastMonth = (period % 100) * 3
  return new Date(Date.UTC(year, lastMonth, 0)).toISOString().slice(0, 10)
}

/** The period after the given one (202604 -> 202701). */
export function nextPeriodOf(period: number): number {
  return period % 100 === 4 ? (Math.floor(period / 100) + 1) * 100 + 1 : period + 1
}

/**
 * The date a number of calendar months after a YYYY-MM-DD date, clamped to the end of a shorter month
 * (2026-03-31 plus one month is 2026-04-30), as calendar "one month after" is read.
 */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const lastDay = new Date(Date.UTC(year, month - 1 + months + 1, 0)).getUTCDate()
  return new Date(Date.UTC(year, month - 1 + months, Math.min(day, lastDay))).toISOString().slice(0, 10)
}

const PERIOD_CODE = /^\d{4}0[1-4]$/

/**
 * Why a reporting period code is not one the service supports (202601 up to the current quarter,
 * spec: Limits), or undefined when it is.
 */
export function unsupportedPeriodReason(code: string | number, today = utcToday()): string | undefined {
  const text = String(code)
  if (!PERIOD_CODE.test(text))
    return `${JSON.stringify(code)} is not a reporting period code {CalendarYear}{Quarter} such as 202601`
  const period = Number(text)
  if (period < FIRST_REPORTING_PERIOD) return `reporting periods start at ${FIRST_REPORTING_PERIOD}`
  const current = currentReportingPeriod(today)
  if (period > current) return `${period} has not started; the current reporting period is ${current}`
  return undefined
}
