// Dates and instants the service accepts (docs/decisions.md, "Exactness: dates, instants and the
// OpenAPI document (issue 30)"). One range for every calendar date of every resource, query parameter
// and reference-data release, and for the years of reporting period codes and UTC instants: 1900-01-01
// to 9999-12-31. Both databases hold every date of it (PostgreSQL has no year 0000), it is written with
// four-digit years in both YYYY-MM-DD and AVETMISS DDMMYYYY, and no date of vocational training or of a
// living student's birth falls before it. The NAT library (packages/avetmiss, which imports nothing of
// ours) keeps the same range in its own dates.ts; a test holds the two equal.

export const EARLIEST_YEAR = 1900
export const LATEST_YEAR = 9999
export const EARLIEST_DATE = `${EARLIEST_YEAR}-01-01`
export const LATEST_DATE = `${LATEST_YEAR}-12-31`

/** The range in words, for messages and descriptions. */
export const DATE_RANGE_TEXT = `from ${EARLIEST_DATE} to ${LATEST_DATE}`

/** A four-digit year of the range, as a regular expression fragment (1900 to 9999). */
const YEAR = '(?:19\\d{2}|[2-9]\\d{3})'

/**
 * A pattern a generated client can enforce: YYYY-MM-DD with a year of the range, a month 01 to 12 and
 * a day 01 to 31. Whether the day exists in its month (2026-02-30) is the format's own check.
 */
export const CALENDAR_DATE_PATTERN = `^${YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])$`

/** A reporting period code {CalendarYear}{Quarter} with a year of the range (190001 to 999904). */
export const REPORTING_PERIOD_PATTERN = `^${YEAR}0[1-4]$`

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

/** Whether year, month and day name a day that exists and lies in the range. */
export function isDayInRange(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || year < EARLIEST_YEAR || year > LATEST_YEAR) return false
  if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(day) || day < 1) return false
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!)
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Whether a text is a calendar date YYYY-MM-DD that exists and lies in the range. */
export function isCalendarDate(value: string): boolean {
  const match = CALENDAR_DATE.exec(value)
  return match !== null && isDayInRange(Number(match[1]), Number(match[2]), Number(match[3]))
}

// A UTC instant in ISO 8601: the extended form (2026-01-01T00:00:00Z) or the basic form
// (20260101T000000Z), never mixed; T or t between date and time; the time to the minute or to the
// second, with a fraction of the second written with . or , (1 to 9 digits); and the zone written as
// Z, z, +00:00, +0000, +00 or the same with a minus sign (RFC 3339's "UTC, local offset unknown").
// Any other offset is not UTC: refused, never converted (the spec asks for a UTC datetime).
const EXTENDED = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]00(?::?00)?)$/
const BASIC = /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]00(?:00)?)$/

/**
 * A pattern a generated client can enforce. It is looser than utcInstant (it does not check that the
 * day exists in its month), never stricter, so a value it refuses the format refuses too.
 */
export const UTC_INSTANT_PATTERN =
  `^(?:${YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])[Tt](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:[.,]\\d{1,9})?)?(?:Z|z|[+-]00(?::?00)?)` +
  `|${YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])[Tt](?:[01]\\d|2[0-3])[0-5]\\d(?:[0-5]\\d(?:[.,]\\d{1,9})?)?(?:Z|z|[+-]00(?:00)?))$`

/**
 * The one spelling of a UTC instant in ISO 8601, or undefined when the text is not one (or its date is
 * outside the range): YYYY-MM-DDTHH:MM:SSZ, with the fraction of the second to the microsecond (what
 * both databases hold), trailing zeros dropped. Digits past the microsecond are cut, never rounded up:
 * a watermark is inclusive, so cutting can only return a version again, never skip one. Every form of
 * the same instant gives the same text, which is what reaches SQL and cache keys.
 */
export function utcInstant(value: string): string | undefined {
  const match = EXTENDED.exec(value) ?? BASIC.exec(value)
  if (!match) return undefined
  const [, year, month, day, hour, minute, second = '00', fraction = ''] = match as unknown as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ]
  if (!isDayInRange(Number(year), Number(month), Number(day))) return undefined
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined
  const micros = fraction.slice(0, 6).padEnd(6, '0').replace(/0+$/, '')
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${micros ? `.${micros}` : ''}Z`
}

/** Whether a text is an ISO 8601 UTC instant the service accepts. */
export function isUtcInstant(value: string): boolean {
  return utcInstant(value) !== undefined
}
