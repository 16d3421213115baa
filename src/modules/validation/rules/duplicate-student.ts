// BRTS03100 (Warning): students with the same name and date of birth under different UIDs are
// probably one person reported twice (domain notes: duplicate students are users' first complaint).
// A Warning, since two people can share both; the remedy is a void with remove_duplicate_record.
import { sql } from 'kysely'
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
  query: (scope) => sql<SetFindingRow>`
    WITH students AS (
      SELECT s.uid, s.ctid, s.source,
             lower(s.body->>'familyName') || '|' || lower(coalesce(s.body->>'firstGivenName', '')) || '|' || (s.body->>'dateOfBirth') AS identity
        FROM ${effectiveRecordsOf(scope, 'Student')} AS s
       WHERE s.body->>'dateOfBirth' IS NOT NULL),
    duplicated AS (
      SELECT identity FROM students GROUP BY identity
      HAVING count(*) > 1 AND bool_or(source = 'Transaction_batch'))
    SELECT s.identity AS group_key, 'Student' AS resource_type, s.uid AS resource_uid,
           ARRAY['$.familyName', '$.firstGivenName', '$.dateOfBirth'] AS access_path, s.ctid AS change_tracking_identifier, s.source AS data_source,
           format('%s other student(s) have the same name and date of birth.', count(*) OVER (PARTITION BY s.identity) - 1) AS message
      FROM students s JOIN duplicated d ON d.identity = s.identity`,
})
