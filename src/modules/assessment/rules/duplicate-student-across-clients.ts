// DQTS10060 (Warning): an RTO that reports through more than one SMS client can end up with one
// person as two students (domain notes: duplicate students are the first complaint). Batch
// validation only sees the batch against held data; this looks across every client's submissions.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type KeyRow,
  type StageSlice,
} from '../assessment-rule.ts'
import { held, studentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10060',
  ruleId: 'DQBR00106',
  level: 'Warning',
  resourceTypes: ['Student'],
  title: 'One person is not reported as different students by different clients',
  description:
    'Held students with the same family name, first given name (ignoring case) and date of birth, submitted by two or more different clients of the RTO, at least one of them enrolled in the period.',
  correctiveAction:
    'Agree between the SMS clients which student record is kept; void the other with voidedReason remove_duplicate_record and point its enrolments at the one kept. If they are different people, nothing needs to change.',
  query: (scope) => findings(scope, [keys(scope)]),
  // A group is the students of one identity, from anywhere in the period: their narrow rows read in key
  // slices of the working copy, then grouped in one short statement, as DQTS10050's (issue 30).
  keyed: { pieces: [{ type: 'Student', keys }], query: findings },
})

/** Each held student with a date of birth: its identity (names ignoring case, date of birth) the key, and whether it is enrolled in the period. */
function keys(scope: AssessmentScope, slice?: StageSlice): RawBuilder<KeyRow> {
  const inPeriod = scope.stage ? sql`st.in_period` : sql`st.uid IN (SELECT p.uid FROM ${studentsInPeriod(scope)} AS p)`
  return sql<KeyRow>`
    SELECT st.uid, st.ctid AS change_tracking_identifier, st.client,
           lower(st.body->>'familyName') || '|' || lower(coalesce(st.body->>'firstGivenName', '')) || '|' || (st.body->>'dateOfBirth') AS key,
           ${inPeriod} AS in_period
      FROM ${held(scope, 'Student', slice)} AS st
     WHERE st.body->>'dateOfBirth' IS NOT NULL`
}

/** The students of `keys` whose identity two or more clients submitted, at least one of them enrolled in the period. */
function findings(_scope: AssessmentScope, [keys]: readonly RawBuilder<KeyRow>[]): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    WITH students AS (${keys!}),
    duplicated AS (
      SELECT key, count(DISTINCT client) AS clients FROM students GROUP BY key
      HAVING count(DISTINCT client) > 1 AND bool_or(in_period))
    SELECT d.key AS group_key, 'Student' AS resource_type, s.uid AS resource_uid, s.change_tracking_identifier,
           s.client AS submitted_by_client,
           format('%s student records from %s clients share family name, first given name and date of birth.',
                  count(*) OVER (PARTITION BY d.key), d.clients) AS message
      FROM duplicated d JOIN students s ON s.key = d.key`
}
