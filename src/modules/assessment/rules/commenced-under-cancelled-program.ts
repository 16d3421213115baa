// DQTS10120 (Warning): a program enrolment Cancelled while subject enrolments under it are still in
// training. The spec allows exactly this ("Only that enrolment changes; related enrolments stay
// active"), so it never blocks: it asks the RTO to confirm that the student really continues those
// subjects, since a forgotten subject cancellation reports activity that did not happen.
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { held, stateAt, subjectEnrolmentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10120',
  ruleId: 'DQBR00112',
  level: 'Warning',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'Subject enrolments still in training under a cancelled program',
  description:
    'A program enrolment Cancelled at the end of the period has no subject enrolment of the period that is Commenced at the end of the period without a final outcome (outcome missing, Continuing or Not_yet_started). The program enrolment and those subject enrolments are reported together. A Warning: cancelling a program enrolment changes only that enrolment, and its subject enrolments may rightly stay active.',
  correctiveAction:
    'If the student continues these subjects, nothing needs to change. If the student left them, submit the subject enrolments with their Cancelled state or final outcome; if the program was not cancelled, correct its lifecycle.',
  query: (scope) => sql<AssessmentFindingRow>`
    WITH open_subjects AS (
      SELECT pe.uid AS pe_uid, pe.ctid AS pe_ctid, pe.client AS pe_client, se.uid AS se_uid, se.ctid AS se_ctid, se.client AS se_client
        FROM ${held(scope, 'ProgramEnrolment')} AS pe
        JOIN ${subjectEnrolmentsInPeriod(scope)} AS se ON se.body->>'programEnrolmentUID' = pe.uid::text
       WHERE pe.jurisdiction = ${scope.jurisdiction}
         AND ${stateAt(scope, 'pe', 'periodEnd')} = 'Cancelled'
         AND ${stateAt(scope, 'se', 'periodEnd')} = 'Commenced'
         AND coalesce(se.body->'outcome'->>'outcomeIdentifierNational', 'Continuing') IN ('Continuing', 'Not_yet_started'))
    SELECT DISTINCT pe_uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe_uid AS resource_uid, pe_ctid AS change_tracking_identifier,
           pe_client AS submitted_by_client, 'the program enrolment is Cancelled while subject enrolments of it are still Commenced without a final outcome; confirm the student continues them.' AS message
      FROM open_subjects
    UNION ALL
    SELECT pe_uid::text, 'SubjectEnrolment', se_uid, se_ctid, se_client,
           format('still Commenced without a final outcome under cancelled program enrolment %s.', pe_uid)
      FROM open_subjects`,
})
