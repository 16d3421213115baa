// An array sent to PostgreSQL as one text parameter in array syntax and cast in the statement: the
// two drivers (pg and PGlite) differ in how they send a JavaScript array.
import { sql, type RawBuilder } from 'kysely'

/** `values` as an integer[] parameter (whole numbers only, so the literal needs no quoting). */
export function integerArray(values: readonly number[]): RawBuilder<number[]> {
  for (const value of values) if (!Number.isSafeInteger(value)) throw new TypeError(`not a whole number: ${value}`)
  return sql<number[]>`${`{${values.join(',')}}`}::integer[]`
}
