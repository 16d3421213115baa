// Identifiers the service mints inside SQL must parse as what they claim: a UUID with a version and
// the RFC 9562 variant, or strict UUID types in generated clients refuse them (issue 17).
import { sql, type RawBuilder } from 'kysely'

/**
 * A name-based UUID of version 8 (RFC 9562 section 5.8, "custom") from the MD5 of a text: the same
 * text always gives the same identifier, so a retried attempt writes the same grouping ids. MD5 is
 * not used for security here, only to spread the name over 122 bits; version 8 says exactly that
 * (version 3 would claim the namespace construction of RFC 9562 section 5.3, which this is not).
 */
export function nameBasedUuid(text: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`(SELECT (substr(h, 1, 12) || '8' || substr(h, 14, 3)
      || substr('89ab', (('x' || substr(h, 17, 1))::bit(4)::int & 3) + 1, 1) || substr(h, 18))::uuid
      FROM md5(${text}) AS digest(h))`
}
