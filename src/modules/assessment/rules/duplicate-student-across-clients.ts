// DQTS10060 (Warning): an RTO that reports through more than one SMS client can end up with one
// person as two students (domain notes: duplicate students are the first complaint). Batch
// validation only sees the batch against held data; this looks across every client's submissions.
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
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
  query: (scope) => sql<AssessmentFindingRow>`
    WITH students AS (
      SELECT st.uid, st.ctid, st.client,
             lower(st.body->>'familyName') || '|' || lower(coalesce(st.body->>'firstGivenName', '')) || '|' || (st.body->>'dateOfBirth') AS identity
        FROM ${held(scope, 'Student')} AS st
       WHERE st.body->>'dateOfBirth' IS NOT NULL),
    duplicated AS (
      SELECT identity FROM students GROUP BY identity
      HAVING count(DISTINCT client) > 1
         AND bool_or(uid IN (SELECT p.uid FROM ${studentsInPeriod(scope)} AS p)))
    SELECT s.identity AS group_key, 'Student' AS resource_type, s.uid AS resource_uid, s.ctid AS change_tracking_identifier,
           s.client AS submitted_by_client,
           format('%s student records from %s clients share family name, first given name and date of birth.',
                  count(*) OVER (PARTITION BY s.identity), (SELECT count(DISTINCT x.client) FROM students x WHERE x.identity = s.identity)) AS message
      FROM students s JOIN duplicated d ON d.identity = s.identity`,
})
