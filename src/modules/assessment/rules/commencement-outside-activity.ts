// DQTS10030 (Warning): the Commenced state of a subject enrolment is usually dated within its training
// dates; one outside them may put the activity in a period it did not happen in. A Warning: the spec
// relates no lifecycle date to activityStartDate or activityEndDate.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type StageSlice,
} from '../assessment-rule.ts'
import { subjectEnrolmentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10030',
  ruleId: 'DQBR00103',
  level: 'Warning',
  resourceTypes: ['SubjectEnrolment'],
  title: 'A subject enrolment commences within its activity dates',
  description:
    'Every Commenced lifecycle state of a subject enrolment of the period is dated on or after its activityStartDate and on or before its activityEndDate, so the activity is reported in the period it happened.',
  correctiveAction:
    'Correct the Commenced studentActivityDate, or activityStartDate and activityEndDate, so that training is reported when it happened.',
  query: (scope) => findings(scope),
  // A group is one subject enrolment of the period (and what it names, looked up by UID): in key slices
  // of the staged subject enrolments on a working copy (issue 30).
  sliced: { type: 'SubjectEnrolment', query: findings },
})

function findings(scope: AssessmentScope, slice?: StageSlice): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    SELECT se.uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid,
           se.ctid AS change_tracking_identifier, se.client AS submitted_by_client,
           format('Commenced on %s, outside activityStartDate %s to activityEndDate %s.',
                  c.date, se.body->>'activityStartDate', se.body->>'activityEndDate') AS message
      FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
      CROSS JOIN LATERAL (
        SELECT min(l.value->>'studentActivityDate') AS date
          FROM jsonb_array_elements(se.body->'lifecycle') AS l(value)
         WHERE l.value->>'studentStatus' = 'Commenced'
           AND (l.value->>'studentActivityDate' < se.body->>'activityStartDate' OR l.value->>'studentActivityDate' > se.body->>'activityEndDate')) AS c
     WHERE c.date IS NOT NULL`
}
