// AVETMISS dates are DDMMYYYY; the library speaks ISO 8601 (YYYY-MM-DD) to its callers.

/** A date field filled with @ means "not stated" (a date of birth the client did not give). */
export const NOT_STATED_DATE = '@@@@@@@@'

/**
 * The dates the library reads and writes: 1900-01-01 to 9999-12-31, the service's range
 * (src/domain/calendar.ts in the service; this package imports nothing of it, and a test holds the two
 * equal). A NAT date outside it is not a date: the field is reported as a bad date, as 31022026 is.
 */
export const EARLIEST_NAT_YEAR = 1900
export const LATEST_NAT_YEAR = 9999

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < EARLIEST_NAT_YEAR || year > LATEST_NAT_YEAR || month < 1 || month > 12 || day < 1) return false
  const days = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!
  return day <= days
}

/** 'DDMMYYYY' to 'YYYY-MM-DD', or undefined if it is not a date that exists (31022026) or lies outside the range. */
export function isoFromNatDate(text: string): string | undefined {
  const match = /^(\d{2})(\d{2})(\d{4})$/.exec(text)
  if (!match) return undefined
  const [, day, month, year] = match as unknown as [string, string, string, string]
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return undefined
  return `${year}-${month}-${day}`
}

/** 'YYYY-MM-DD' to 'DDMMYYYY', or undefined if it is not a date that exists or lies outside the range. */
export function natDateFromIso(iso: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso)
  if (!match) return undefined
  const [, year, month, day] = match as unknown as [string, string, string, string]
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return undefined
  return `${day}${month}${year}`
}
