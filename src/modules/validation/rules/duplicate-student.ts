// BRTS03100 (Warning): students with the same name and date of birth under different UIDs are
// probably one person reported twice (domain notes: duplicate students are users' first complaint).
// A Warning, since two people can share both; the remedy is a void with remove_duplicate_record.
import { sql, type RawBuilder } from 'kysely'
import { defineSetRule, type SetFindingRow } from '../rule.ts'
import { effectiveRecordsOf } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS03100',
  ruleId: 'BRDG00060',
  level: 'Warning',
  resourceTypes: ['Student'],
  title: 'Possible duplicate student',
  description:
    'Two or more students (in the batch, or held) share family name, first given name (ignoring case) and date of birth under different studentUIDs, and at least one of them is in the batch.',
  correctiveAction:
    'If they are one person, void the duplicate with voidedReason remove_duplicate_record and point its enrolments at the student kept; otherwise nothing needs to change.',
  // In key slices (issue 30): each slice keeps its students' identities (a row each, read from their
  // bodies), and the groups are found over those narrow rows in one statement.
  slicedParts: (scope) => [
    {
      type: 'Student',
      query: (slice) => sql<SetFindingRow>`
        SELECT ${identityOf('s')} AS group_key, 'Student' AS resource_type, s.uid AS resource_uid,
               ${ACCESS_PATH} AS access_path, s.ctid AS change_tracking_identifier, s.source AS data_source, NULL AS message
          FROM ${effectiveRecordsOf(scope, 'Student', slice)} AS s
         WHERE s.body->>'dateOfBirth' IS NOT NULL`,
    },
  ],
  fromPieces: (_scope, pieces) => sql<SetFindingRow>`
    WITH duplicated AS (
      SELECT group_key FROM ${pieces} GROUP BY group_key
      HAVING count(*) > 1 AND bool_or(data_source = 'Transaction_batch'))
    SELECT s.group_key, s.resource_type, s.resource_uid, s.access_path, s.change_tracking_identifier, s.data_source,
           ${message(sql`s.group_key`)} AS message
      FROM ${pieces} AS s JOIN duplicated d ON d.group_key = s.group_key`,
  query: (scope) => sql<SetFindingRow>`
    WITH students AS (
      SELECT s.uid, s.ctid, s.source, ${identityOf('s')} AS identity
        FROM ${effectiveRecordsOf(scope, 'Student')} AS s
       WHERE s.body->>'dateOfBirth' IS NOT NULL),
    duplicated AS (
      SELECT identity FROM students GROUP BY identity
      HAVING count(*) > 1 AND bool_or(source = 'Transaction_batch'))
    SELECT s.identity AS group_key, 'Student' AS resource_type, s.uid AS resource_uid,
           ${ACCESS_PATH} AS access_path, s.ctid AS change_tracking_identifier, s.source AS data_source,
           ${message(sql`s.identity`)} AS message
      FROM students s JOIN duplicated d ON d.identity = s.identity`,
})

const ACCESS_PATH = sql`ARRAY['$.familyName', '$.firstGivenName', '$.dateOfBirth']`

/** A student's identity: family name, first given name (ignoring case) and date of birth. */
function identityOf(alias: string): RawBuilder<string> {
  const s = sql.raw(alias)
  return sql<string>`lower(${s}.body->>'familyName') || '|' || lower(coalesce(${s}.body->>'firstGivenName', '')) || '|' || (${s}.body->>'dateOfBirth')`
}

/** The message of a student whose identity (`identity`, partitioned over the rows) others share. */
function message(identity: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`format('%s other student(s) have the same name and date of birth.', count(*) OVER (PARTITION BY ${identity}) - 1)`
}
