// The JSON Schema checker (Ajv) with the service's settings, formats and keyword, and the failures it
// reports turned into field errors with access paths. Bodies are checked strictly (no type coercion:
// "5" is not 5); path and query values arrive as text and are coerced to the schema's types. Every
// failure is collected, and unknown properties fail instead of being dropped. Knows nothing of HTTP:
// platform/http wires it into Fastify (request-validation.ts, validation.ts).
import { Ajv, type ErrorObject, type KeywordDefinition } from 'ajv'
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js'
import addFormats from 'ajv-formats'
import { childPath } from './strings.ts'
import type { FieldError } from '../../domain/errors.ts'
import { DATE_RANGE_TEXT, isCalendarDate, isUtcInstant, REPORTING_PERIOD_PATTERN } from '../../domain/calendar.ts'

/** The pattern of a UUID version 4: what the uuid-v4 format checks, for generated clients. */
export const UUID_V4_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$'

const UUID_V4 = new RegExp(UUID_V4_PATTERN)

/**
 * `x-uniqueBy: name` on an array of objects: no two items may have the same value of that property
 * (uniqueItems compares whole items, so the same location twice with different hours would pass it).
 * An OpenAPI extension keyword, so the published schema carries it for readers and generators.
 */
const uniqueByKeyword: KeywordDefinition = {
  keyword: 'x-uniqueBy',
  type: 'array',
  schemaType: 'string',
  errors: true,
  validate: function uniqueBy(property: string, items: unknown[]): boolean {
    const self = uniqueBy as SchemaValidateFunction
    const seen = new Map<unknown, number>()
    for (const [index, item] of items.entries()) {
      const value = item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[property] : undefined
      if (value === undefined) continue
      const first = seen.get(value)
      if (first !== undefined) {
        self.errors = [
          {
            keyword: 'x-uniqueBy',
            params: { property },
            message: `must not list the same ${property} twice (items ${first} and ${index})`,
          },
        ]
        return false
      }
      seen.set(value, index)
    }
    return true
  },
}

/**
 * The service's own formats. A date is a day that exists in the service's range (src/domain/calendar.ts),
 * not any ISO date: PostgreSQL holds no year 0000, and a date accepted here must be one every later step
 * can hold.
 */
export const SERVICE_FORMATS = {
  date: { type: 'string', validate: isCalendarDate },
  'utc-date-time': { type: 'string', validate: isUtcInstant },
  'uuid-v4': { type: 'string', validate: (value: string) => UUID_V4.test(value) },
} as const

/**
 * The Ajv options of Fastify's response serializer (fast-json-stringify), which checks a value against
 * a schema where a response's schema has alternatives (anyOf) to choose the one to write it by: the
 * service's formats, so that choice knows them, and no warnings about the response schemas (without
 * them every first answer of such a route printed "unknown format uuid-v4 ignored" and strict-mode
 * lines to stderr, hundreds in a test run).
 */
export const SERIALIZER_AJV_OPTIONS = { formats: SERVICE_FORMATS, strictTypes: false } as const

export function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  })
  addFormats.default(ajv, ['date-time', 'email', 'uri', 'uuid'])
  for (const [name, format] of Object.entries(SERVICE_FORMATS)) ajv.addFormat(name, format)
  ajv.addKeyword(uniqueByKeyword)
  return ajv
}

const FORMAT_MESSAGES: Record<string, string> = {
  date: `must be a real calendar date in the form YYYY-MM-DD, ${DATE_RANGE_TEXT}`,
  'utc-date-time': `must be an ISO 8601 date-time in UTC (Z or a zero offset such as +00:00; other offsets are refused, not converted), ${DATE_RANGE_TEXT}, e.g. 2026-01-01T00:00:00Z`,
  'uuid-v4': 'must be a UUID version 4',
  uuid: 'must be a UUID',
  email: 'must be an email address',
}

const PATTERN_MESSAGES: Record<string, string> = {
  [REPORTING_PERIOD_PATTERN]:
    'must be a reporting period code {CalendarYear}{Quarter} such as 202601, year 1900 to 9999',
}

/**
 * Turns Ajv failures into the problem body's errors, with JSONPath-style access paths. A format that
 * carries a pattern (dates, instants, UUIDs) is reported once, by its format's message: its pattern is
 * never stricter than the format, so a value the pattern refuses always fails the format too.
 */
export function toFieldErrors(errors: ErrorObject[], root: string): FieldError[] {
  const formatFailed = new Set(errors.filter((error) => error.keyword === 'format').map((error) => error.instancePath))
  return errors
    .filter((error) => error.keyword !== 'if')
    .filter((error) => error.keyword !== 'pattern' || !formatFailed.has(error.instancePath))
    .map((error) => {
      const base = error.instancePath
        .split('/')
        .slice(1)
        .reduce((path, segment) => {
          const key = segment.replace(/~1/g, '/').replace(/~0/g, '~')
          return /^\d+$/.test(key) ? `${path}[${key}]` : childPath(path, key)
        }, root)
      switch (error.keyword) {
        case 'required':
          return { accessPath: childPath(base, String(error.params.missingProperty)), message: 'is required' }
        case 'additionalProperties':
          return {
            accessPath: childPath(base, String(error.params.additionalProperty)),
            message: 'is not a known property',
          }
        case 'enum':
          return {
            accessPath: base,
            message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`,
          }
        case 'const':
          return { accessPath: base, message: `must be ${JSON.stringify(error.params.allowedValue)}` }
        case 'pattern':
          return {
            accessPath: base,
            message: PATTERN_MESSAGES[String(error.params.pattern)] ?? error.message ?? 'is not valid',
          }
        case 'format':
          return {
            accessPath: base,
            message: FORMAT_MESSAGES[String(error.params.format)] ?? `must match format ${error.params.format}`,
          }
        default:
          return { accessPath: base, message: error.message ?? 'is not valid' }
      }
    })
}
