// DQTS10120: when a program enrolment is cancelled, its subject enrolments still in training are
// cancelled or finished too; otherwise the data reports activity in a program the student has left.
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { held, statusAsAt, subjectEnrolmentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10120',
  ruleId: 'DQBR00112',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'No subject is still in training under a cancelled program',
  description: 'A program enrolment Cancelled at the end of the period has no subject enrolment of the period that is Commenced at the end of the period without a final outcome (outcome missing, Continuing or Not_yet_started). The program enrolment and those subject enrolments are reported together.',
  correctiveAction: 'Submit the subject enrolments with their Cancelled state or final outcome, or correct the program enrolment\'s lifecycle if it was not cancelled.',
  query: (scope) => sql<AssessmentFindingRow>`
    WITH open_subjects AS (
      SELECT pe.uid AS pe_uid, pe.ctid AS pe_ctid, pe.client AS pe_client, se.uid AS se_uid, se.ctid AS se_ctid, se.client AS se_client
        FROM ${held(scope, 'ProgramEnrolment')} AS pe
        JOIN ${subjectEnrolmentsInPeriod(scope)} AS se ON se.body->>'programEnrolmentUID' = pe.uid::text
       WHERE pe.jurisdiction = ${scope.jurisdiction}
         AND ${statusAsAt('pe', scope.periodEnd)} = 'Cancelled'
         AND ${statusAsAt('se', scope.periodEnd)} = 'Commenced'
         AND coalesce(se.body->'outcome'->>'outcomeIdentifierNational', 'Continuing') IN ('Continuing', 'Not_yet_started'))
    SELECT DISTINCT pe_uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe_uid AS resource_uid, pe_ctid AS change_tracking_identifier,
           pe_client AS submitted_by_client, 'the program enrolment is Cancelled but subject enrolments of it are still Commenced without a final outcome.' AS message
      FROM open_subjects
    UNION ALL
    SELECT pe_uid::text, 'SubjectEnrolment', se_uid, se_ctid, se_client,
           format('still Commenced without a final outcome under cancelled program enrolment %s.', pe_uid)
      FROM open_subjects`,
})
