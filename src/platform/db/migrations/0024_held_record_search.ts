// Held records found by what people know them by (issue 32: the console's record search): a student's
// names, client identifier and USI, a unit's or program's code, a delivery location's identifier. One
// GIN index over the current versions, each key prefixed with the RTO (`<rto>:<lower-case value>`), so
// a search is RTO-scoped inside the index and every word of it must be one of the record's keys. The
// expression is holdings' (held_search_keys, holdings.repo.ts): change both together. Owned by
// modules/holdings. Built while the migration holds its lock: on a large held_record, build it
// beforehand with CREATE INDEX CONCURRENTLY under the same name (docs/operations.md); it is then kept.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE INDEX IF NOT EXISTS held_record_search ON held_record USING gin ((ARRAY[
      rto_id || ':' || lower(body->>'clientIdentifier'),
      rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
      rto_id || ':' || lower(body->>'familyName'),
      rto_id || ':' || lower(body->>'firstGivenName'),
      rto_id || ':' || lower(body->>'subjectIdentifier'),
      rto_id || ':' || lower(body->>'programIdentifier'),
      rto_id || ':' || lower(body->>'deliveryLocationIdentifier')
    ])) WHERE is_current`.execute(db)
}
