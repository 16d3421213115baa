// Reporting periods are calendar quarters written {CalendarYear}{Quarter}: 202601 is January to March
// 2026 (spec: search-by-period; Limits, supported reporting periods from 202601).
export const FIRST_REPORTING_PERIOD = 202601

/** The reporting period of a YYYY-MM-DD date. */
export function reportingPeriodOf(date: string): number {
  const year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  return year * 100 + Math.ceil(month / 3)
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
