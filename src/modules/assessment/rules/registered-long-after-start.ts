// DQTS10020 (Warning): a subject enrolment still Registered well after its training started has
// probably commenced, or was cancelled, without the state being reported.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type StageSlice,
} from '../assessment-rule.ts'
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
  query: (scope) => findings(scope),
  // A group is one subject enrolment of the period (and what it names, looked up by UID): in key slices
  // of the staged subject enrolments on a working copy (issue 30).
  sliced: { type: 'SubjectEnrolment', query: findings },
})

function findings(scope: AssessmentScope, slice?: StageSlice): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    SELECT se.uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid,
           se.ctid AS change_tracking_identifier, se.client AS submitted_by_client,
           format('still Registered on %s, %s days after activityStartDate %s.', ${scope.asAt}::text,
                  ${scope.asAt}::date - (se.body->>'activityStartDate')::date, se.body->>'activityStartDate') AS message
      FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
     WHERE ${stateAt(scope, 'se', 'asAt')} = 'Registered'
       AND (se.body->>'activityStartDate')::date < ${scope.asAt}::date - ${REGISTERED_GRACE_DAYS}::int`
}
