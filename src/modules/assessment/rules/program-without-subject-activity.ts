// DQTS10010 (Warning): a program enrolment that stands Commenced through the period usually shows
// training in it; none often means activity is missing from the period. A Warning: the spec asks only
// that a program enrolment have a subject enrolment (checked by BRTS01440), not activity every quarter,
// and a term break is legitimate (docs/decisions.md, Data quality assessments, Rules).
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { held, stateAt, subjectEnrolmentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10010',
  ruleId: 'DQBR00101',
  level: 'Warning',
  resourceTypes: ['ProgramEnrolment'],
  title: 'A commenced program enrolment has subject activity in the period',
  description:
    'A program enrolment reported under the jurisdiction, commenced by the end of the period, still Commenced at the end of the period and not completed before it began, has at least one subject enrolment (programEnrolmentUID) whose training or lifecycle falls in the period.',
  correctiveAction:
    "Submit the subject enrolments of the program that had activity in the period, or submit the program enrolment's Deferred or Cancelled state with its date.",
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
           pe.ctid AS change_tracking_identifier, pe.client AS submitted_by_client,
           format('program enrolment commenced on %s is Commenced at %s but none of its subject enrolments has activity in %s.',
                  pe.body->>'commencementDate', ${scope.periodEnd}::text, ${scope.period}::int) AS message
      FROM ${held(scope, 'ProgramEnrolment')} AS pe
     WHERE pe.jurisdiction = ${scope.jurisdiction}
       AND pe.body->>'commencementDate' <= ${scope.periodEnd}
       AND ${stateAt(scope, 'pe', 'periodEnd')} = 'Commenced'
       AND coalesce(pe.body->'programCompletion'->>'dateProgramCompleted', '9999-12-31') >= ${scope.periodStart}
       AND NOT EXISTS (SELECT 1 FROM ${subjectEnrolmentsInPeriod(scope)} AS se
                        WHERE se.body->>'programEnrolmentUID' = pe.uid::text)`,
})
