// One field's text to a value (reading) and a value to the field's text (writing): the place where
// the types of the specification take effect.
import { isoFromNatDate, NOT_STATED_DATE, natDateFromIso } from './dates.ts'
import type { FieldLayout } from './layout.ts'

export type FieldOutcome<T> = { ok: true; value: T } | { ok: false; message: string }

const ok = <T>(value: T): FieldOutcome<T> => ({ ok: true, value })
const fault = <T>(message: string): FieldOutcome<T> => ({ ok: false, message })

const DIGITS = /^\d+$/

function hasCharacterBeyondLatin1(value: string): boolean {
  // Code units, not code points: a character outside the BMP is two surrogates, both above 0xFF.
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0xff) return true
  return false
}

/**
 * The value of a field's text: trimmed, blank as undefined, a date as YYYY-MM-DD. A numeric value
 * keeps its digits as written, leading zeros included, because many numeric fields are codes
 * (a field of education of 0803 is not 803).
 */
export function readFieldValue(field: FieldLayout, text: string): FieldOutcome<string | undefined> {
  const value = text.trim()
  if (value === '') return field.blankAllowed ? ok(undefined) : fault(`${field.label} must not be blank`)
  switch (field.type) {
    case 'alphanumeric':
      return ok(value)
    case 'numeric':
      return DIGITS.test(value) ? ok(value) : fault(`${field.label} must be a number (digits only), not "${value}"`)
    case 'date': {
      if (value === NOT_STATED_DATE) return ok(value)
      const iso = isoFromNatDate(value)
      return iso
        ? ok(iso)
        : fault(`${field.label} must be a date that exists, from 1900 to 9999, as DDMMYYYY, not "${value}"`)
    }
  }
}

/**
 * A value as the field's text, exactly `field.length` long: alphanumeric left-aligned and filled with
 * spaces, numeric right-aligned and filled with zeros, dates from YYYY-MM-DD to DDMMYYYY. A blank
 * value is written as spaces.
 */
export function formatFieldValue(field: FieldLayout, value: string | undefined): FieldOutcome<string> {
  const blank = ' '.repeat(field.length)
  if (value === undefined || value.trim() === '') {
    return field.blankAllowed ? ok(blank) : fault(`${field.label} must not be blank`)
  }
  if (/[\r\n]/.test(value)) return fault(`${field.label} must not contain a line break`)
  // The files are written one byte a character (latin1), so a column is a byte, as the positions assume.
  if (hasCharacterBeyondLatin1(value)) return fault(`${field.label} has a character that is not in Latin-1`)
  switch (field.type) {
    case 'alphanumeric':
      return value.length <= field.length
        ? ok(value.padEnd(field.length, ' '))
        : fault(`${field.label} is ${value.length} characters long; at most ${field.length} fit`)
    case 'numeric':
      if (!DIGITS.test(value)) return fault(`${field.label} must be a number (digits only), not "${value}"`)
      return value.length <= field.length
        ? ok(value.padStart(field.length, '0'))
        : fault(`${field.label} has ${value.length} digits; at most ${field.length} fit`)
    case 'date': {
      if (value === NOT_STATED_DATE) return ok(value)
      const text = natDateFromIso(value)
      return text
        ? ok(text)
        : fault(`${field.label} must be a date that exists, from 1900 to 9999, as YYYY-MM-DD, not "${value}"`)
    }
  }
}
