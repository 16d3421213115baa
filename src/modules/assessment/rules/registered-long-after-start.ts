// DQTS10020 (Warning): a subject enrolment still Registered well after its training started has
// probably commenced, or was cancelled, without the state being reported.
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { stateAt, subjectEnrolmentsInPeriod } from './sql.ts'

export const REGISTERED_GRACE_DAYS = 60

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10020',
  ruleId: 'DQBR00102',
  level: 'Warning',
  resourceTypes: ['SubjectEnrolment'],
  title: 'A subject enrolment is not still Registered long after its training started',
  description: `A subject enrolment of the period whose state at the end of the period (or today, if earlier) is Registered has an activityStartDate no more than ${REGISTERED_GRACE_DAYS} days before that day.`,
  correctiveAction:
    "Submit the subject enrolment's Commenced state (or its Cancelled state with a reason), or correct activityStartDate if training has not started.",
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT se.uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid,
           se.ctid AS change_tracking_identifier, se.client AS submitted_by_client,
           format('still Registered on %s, %s days after activityStartDate %s.', ${scope.asAt}::text,
                  ${scope.asAt}::date - (se.body->>'activityStartDate')::date, se.body->>'activityStartDate') AS message
      FROM ${subjectEnrolmentsInPeriod(scope)} AS se
     WHERE ${stateAt(scope, 'se', 'asAt')} = 'Registered'
       AND (se.body->>'activityStartDate')::date < ${scope.asAt}::date - ${REGISTERED_GRACE_DAYS}::int`,
})
