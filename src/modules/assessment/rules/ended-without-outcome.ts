// DQTS10100 (Warning): training that ended usually has a result. A subject enrolment past its
// activityEndDate (with a grace period for assessment to be marked) and still without a final outcome
// leaves the period's activity unfinished in the data. A Warning: the spec sets no deadline for an
// outcome, and results are often marked late.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type StageSlice,
} from '../assessment-rule.ts'
import { stateAt, subjectEnrolmentsInPeriod } from './sql.ts'

export const OUTCOME_GRACE_DAYS = 30

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10100',
  ruleId: 'DQBR00110',
  level: 'Warning',
  resourceTypes: ['SubjectEnrolment'],
  title: 'A subject whose training ended has an outcome',
  description: `A subject enrolment of the period that is Commenced at the end of the period (or today, if earlier) and whose activityEndDate is more than ${OUTCOME_GRACE_DAYS} days before that day has a final outcome (outcome.outcomeIdentifierNational other than Continuing and Not_yet_started).`,
  correctiveAction:
    'Submit the subject enrolment with its outcome, or with a later activityEndDate if training continues.',
  query: (scope) => findings(scope),
  // A group is one subject enrolment of the period (and what it names, looked up by UID): in key slices
  // of the staged subject enrolments on a working copy (issue 30).
  sliced: { type: 'SubjectEnrolment', query: findings },
})

function findings(scope: AssessmentScope, slice?: StageSlice): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    SELECT se.uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid,
           se.ctid AS change_tracking_identifier, se.client AS submitted_by_client,
           format('activityEndDate %s has passed and the outcome is %s.', se.body->>'activityEndDate',
                  coalesce(se.body->'outcome'->>'outcomeIdentifierNational', 'not given')) AS message
      FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
     WHERE ${stateAt(scope, 'se', 'asAt')} = 'Commenced'
       AND (se.body->>'activityEndDate')::date < ${scope.asAt}::date - ${OUTCOME_GRACE_DAYS}::int
       AND coalesce(se.body->'outcome'->>'outcomeIdentifierNational', 'Continuing') IN ('Continuing', 'Not_yet_started')`
}
