// DQTS10080 (Warning): a student reported in the period with no enrolment in it is often the sign of
// enrolments that were never sent (or went to another jurisdiction).
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { held, studentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10080',
  ruleId: 'DQBR00108',
  level: 'Warning',
  resourceTypes: ['Student'],
  title: 'A student reported in the period has an enrolment in it',
  description:
    'A student whose current version was submitted during the period under the jurisdiction has a subject or program enrolment in the period under the jurisdiction.',
  correctiveAction:
    "Submit the student's enrolments with activity in the period; if the student only had contact details updated, nothing needs to change.",
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT st.uid::text AS group_key, 'Student' AS resource_type, st.uid AS resource_uid,
           st.ctid AS change_tracking_identifier, st.client AS submitted_by_client,
           format('submitted on %s, but has no enrolment with activity in %s.', (st.submitted_at AT TIME ZONE 'UTC')::date, ${scope.period}::int) AS message
      FROM ${held(scope, 'Student')} AS st
     WHERE st.jurisdiction = ${scope.jurisdiction}
       AND (st.submitted_at AT TIME ZONE 'UTC')::date BETWEEN ${scope.periodStart}::date AND ${scope.periodEnd}::date
       AND st.uid NOT IN (SELECT p.uid FROM ${studentsInPeriod(scope)} AS p)`,
})
