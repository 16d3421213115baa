// DQTS10050 (Error, the one blocking assessment rule): a USI belongs to one person, so two held student
// records with one USI are one learner reported twice (or a mistyped USI), and the person's activity is
// split between them. It blocks because the spec supports it: a Student identifies a learner, and a
// second record of one learner is a record submitted in error, the case voidedReason
// remove_duplicate_record exists for (docs/decisions.md, Data quality assessments, Rules).
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { held, studentsInPeriod } from './sql.ts'

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10050',
  ruleId: 'DQBR00105',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'One USI, one student',
  description:
    'No two held students of the RTO (whichever client reported them) share a uniqueStudentIdentifier, INTOFF aside, when at least one of them is enrolled in the period.',
  correctiveAction:
    'If the records are one person, void the duplicate with voidedReason remove_duplicate_record and point its enrolments at the student kept; otherwise correct the mistyped USI.',
  query: (scope) => sql<AssessmentFindingRow>`
    WITH shared AS (
      SELECT st.body->>'uniqueStudentIdentifier' AS usi
        FROM ${held(scope, 'Student')} AS st
       WHERE st.body->>'uniqueStudentIdentifier' IS NOT NULL AND st.body->>'uniqueStudentIdentifier' <> 'INTOFF'
       GROUP BY 1 HAVING count(*) > 1)
    SELECT sh.usi AS group_key, 'Student' AS resource_type, st.uid AS resource_uid, st.ctid AS change_tracking_identifier,
           st.client AS submitted_by_client, format('%s student records share this uniqueStudentIdentifier.', count(*) OVER (PARTITION BY sh.usi)) AS message
      FROM shared sh JOIN ${held(scope, 'Student')} AS st ON st.body->>'uniqueStudentIdentifier' = sh.usi
     WHERE EXISTS (SELECT 1 FROM ${studentsInPeriod(scope)} AS p WHERE p.body->>'uniqueStudentIdentifier' = sh.usi)`,
})
