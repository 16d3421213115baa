// DQTS10110 (Warning): a subject counted towards a program starts within the program's enrolment:
// not before it commenced, not after it was completed. Either date may be the wrong one, so the
// subject enrolment and the program enrolment are reported together.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type StageSlice,
} from '../assessment-rule.ts'
import { joinHeldByUid, subjectEnrolmentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10110',
  ruleId: 'DQBR00111',
  level: 'Warning',
  resourceTypes: ['SubjectEnrolment', 'ProgramEnrolment'],
  title: 'Subject activity lies within its program enrolment',
  description:
    "A subject enrolment of the period with a programEnrolmentUID has an activityStartDate on or after the program enrolment's commencementDate and, when the program is completed, on or before programCompletion.dateProgramCompleted.",
  correctiveAction:
    "Correct the subject enrolment's activityStartDate or the program enrolment's commencementDate (or completion date), whichever is wrong; credit transfer from an earlier enrolment may be reported with the program's dates.",
  query: (scope) => findings(scope),
  // A group is one subject enrolment of the period (and what it names, looked up by UID): in key slices
  // of the staged subject enrolments on a working copy (issue 30).
  sliced: { type: 'SubjectEnrolment', query: findings },
})

function findings(scope: AssessmentScope, slice?: StageSlice): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    WITH outside AS (
      SELECT se.uid AS se_uid, se.ctid AS se_ctid, se.client AS se_client, pe.uid AS pe_uid, pe.ctid AS pe_ctid, pe.client AS pe_client,
             se.body->>'activityStartDate' AS started, pe.body->>'commencementDate' AS commenced,
             pe.body->'programCompletion'->>'dateProgramCompleted' AS completed
        FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
        ${joinHeldByUid(scope, 'ProgramEnrolment', 'pe', sql`(se.body->>'programEnrolmentUID')::uuid`, slice)}
       WHERE se.body->>'activityStartDate' < pe.body->>'commencementDate'
          OR se.body->>'activityStartDate' > pe.body->'programCompletion'->>'dateProgramCompleted')
    SELECT se_uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se_uid AS resource_uid, se_ctid AS change_tracking_identifier,
           se_client AS submitted_by_client,
           format('activityStartDate %s is outside program enrolment %s (commenced %s, completed %s).', started, pe_uid, commenced, coalesce(completed, 'not yet')) AS message
      FROM outside
    UNION ALL
    SELECT se_uid::text, 'ProgramEnrolment', pe_uid, pe_ctid, pe_client,
           format('subject enrolment %s starts on %s, outside this enrolment (commenced %s, completed %s).', se_uid, started, commenced, coalesce(completed, 'not yet'))
      FROM outside`
}
