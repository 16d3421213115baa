// DQTS10070 (Warning): a program reported completed in the period usually shows the subjects that
// completed it; none achieved suggests the completion or the subject results are missing. A Warning:
// the spec sets no rule between completion information and subject outcomes.
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { SUCCESSFUL_OUTCOMES, held } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10070',
  ruleId: 'DQBR00107',
  level: 'Warning',
  resourceTypes: ['ProgramEnrolment'],
  title: 'A program completed in the period has achieved subjects',
  description: `A program enrolment reported under the jurisdiction whose programCompletion.dateProgramCompleted falls in the period has at least one held subject enrolment (programEnrolmentUID) with a successful outcome (${SUCCESSFUL_OUTCOMES.join(', ')}).`,
  correctiveAction:
    'Submit the subject enrolments of the program with their outcomes, or remove programCompletion if the program is not completed.',
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
           pe.ctid AS change_tracking_identifier, pe.client AS submitted_by_client,
           format('completed on %s, but no subject enrolment of the program has a successful outcome.', pe.body->'programCompletion'->>'dateProgramCompleted') AS message
      FROM ${held(scope, 'ProgramEnrolment')} AS pe
     WHERE pe.jurisdiction = ${scope.jurisdiction}
       AND pe.body->'programCompletion'->>'dateProgramCompleted' BETWEEN ${scope.periodStart} AND ${scope.periodEnd}
       AND NOT EXISTS (
         SELECT 1 FROM ${held(scope, 'SubjectEnrolment')} AS se
          WHERE se.body->>'programEnrolmentUID' = pe.uid::text
            AND se.body->'outcome'->>'outcomeIdentifierNational' IN (${sql.join([...SUCCESSFUL_OUTCOMES])}))`,
})
