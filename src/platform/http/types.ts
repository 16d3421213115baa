// Shared schema building blocks. Enumerations use the JSON Schema `enum` keyword so that failures read
// "must be one of ..." and the string rules can recognise (and trim) enum values.
import Type, { type Static, type TSchema } from 'typebox'
import { CALENDAR_DATE_PATTERN, DATE_RANGE_TEXT, UTC_INSTANT_PATTERN } from '../../domain/calendar.ts'
import { jurisdictions } from '../../domain/jurisdictions.ts'
import { UUID_V4_PATTERN } from '../schema/ajv.ts'

export const StringEnum = <const Values extends readonly string[]>(
  values: Values,
  options: Record<string, unknown> = {},
) => Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...options })

/**
 * A real calendar date, YYYY-MM-DD, in the service's range (src/domain/calendar.ts). The format checks
 * the day exists and the range; the pattern says as much as a pattern can, so generated clients
 * enforce it too.
 */
export const DateString = (options: Record<string, unknown> = {}) =>
  Type.String({
    format: 'date',
    pattern: CALENDAR_DATE_PATTERN,
    description: `calendar date, YYYY-MM-DD, ${DATE_RANGE_TEXT}`,
    ...options,
  })

/**
 * An ISO 8601 date-time in UTC: Z, z, +00:00, +0000 or +00, to the minute, the second or a fraction of
 * it (src/domain/calendar.ts, utcInstant). The custom format carries a pattern, so generated clients
 * that do not know the format still enforce it.
 */
export const UtcDateTime = (options: Record<string, unknown> = {}) =>
  Type.String({
    format: 'utc-date-time',
    pattern: UTC_INSTANT_PATTERN,
    description: 'ISO 8601 date-time in UTC (Z or a zero offset such as +00:00), e.g. 2026-01-01T00:00:00Z',
    ...options,
  })

/** A client-generated UUID version 4. */
export const Uuid4 = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'uuid-v4', pattern: UUID_V4_PATTERN, description: 'UUID version 4', ...options })

export const Jurisdiction = StringEnum(jurisdictions, { description: 'jurisdiction code' })

/** Closed object: unknown properties are failures, never silently dropped. */
export const Strict = <Properties extends Record<string, TSchema>>(
  properties: Properties,
  options: Record<string, unknown> = {},
) => Type.Object(properties, { additionalProperties: false, ...options })

/**
 * A value of the schema or null, as `type: [T, 'null']` rather than anyOf: the response serialiser
 * handles a type list directly, while anyOf makes it validate every value against each branch.
 */
export const Nullable = <Schema extends TSchema & { type: string }>(
  schema: Schema,
  options: Record<string, unknown> = {},
) => Type.Unsafe<Static<Schema> | null>({ ...schema, type: [schema.type, 'null'], ...options })

/**
 * An optional body field: left out, or sent as JSON null, it is absent. The spec's No_value "has the
 * same outcome as null", so null is a value SMSs send for "nothing here"; the request pipeline drops
 * a null on any property that is not required before the schema is checked (strings.ts), and the
 * published schema says null is allowed, so a generated client may send it. The TypeScript type stays
 * that of the field: by the time a service sees the body, the null is gone.
 */
export const Optional = <Schema extends TSchema>(schema: Schema) =>
  Type.Optional(Type.Unsafe<Static<Schema>>(orNull(schema)))

function orNull(schema: TSchema): Record<string, unknown> {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown[] }
  if (typeof type === 'string')
    return { ...schema, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) }
  if (Array.isArray(type)) return type.includes('null') ? { ...schema } : { ...schema, type: [...type, 'null'] }
  return { anyOf: [schema, { type: 'null' }] }
}
