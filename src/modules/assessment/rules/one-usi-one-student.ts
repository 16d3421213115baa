// DQTS10050 (Error, the one blocking assessment rule): a USI belongs to one person, so two held student
// records with one USI are one learner reported twice (or a mistyped USI), and the person's activity is
// split between them. It blocks because the spec supports it: a Student identifies a learner, and a
// second record of one learner is a record submitted in error, the case voidedReason
// remove_duplicate_record exists for (docs/decisions.md, Data quality assessments, Rules).
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type KeyRow,
  type StageSlice,
} from '../assessment-rule.ts'
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
  query: (scope) => findings(scope, [keys(scope)]),
  // A group is the students sharing a USI, from anywhere in the period: their narrow rows read in key
  // slices of the working copy, then grouped in one short statement (issue 30).
  keyed: { pieces: [{ type: 'Student', keys }], query: findings },
})

/** Each held student with a USI (INTOFF aside): the USI its key, and whether it is enrolled in the period. */
function keys(scope: AssessmentScope, slice?: StageSlice): RawBuilder<KeyRow> {
  const inPeriod = scope.stage ? sql`st.in_period` : sql`st.uid IN (SELECT p.uid FROM ${studentsInPeriod(scope)} AS p)`
  return sql<KeyRow>`
    SELECT st.uid, st.ctid AS change_tracking_identifier, st.client, st.body->>'uniqueStudentIdentifier' AS key, ${inPeriod} AS in_period
      FROM ${held(scope, 'Student', slice)} AS st
     WHERE st.body->>'uniqueStudentIdentifier' IS NOT NULL AND st.body->>'uniqueStudentIdentifier' <> 'INTOFF'`
}

/** The students of `keys` whose USI is held more than once, at least one of them enrolled in the period. */
function findings(_scope: AssessmentScope, [keys]: readonly RawBuilder<KeyRow>[]): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    WITH students AS (${keys!}),
    shared AS (SELECT key FROM students GROUP BY key HAVING count(*) > 1 AND bool_or(in_period))
    SELECT sh.key AS group_key, 'Student' AS resource_type, st.uid AS resource_uid, st.change_tracking_identifier,
           st.client AS submitted_by_client, format('%s student records share this uniqueStudentIdentifier.', count(*) OVER (PARTITION BY sh.key)) AS message
      FROM shared sh JOIN students st ON st.key = sh.key`
}
