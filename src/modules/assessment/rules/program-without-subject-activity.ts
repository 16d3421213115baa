// DQTS10010 (Warning): a program enrolment that stands Commenced through the period usually shows
// training in it; none often means activity is missing from the period. A Warning: the spec asks only
// that a program enrolment have a subject enrolment (checked by BRTS01440), not activity every quarter,
// and a term break is legitimate (docs/decisions.md, Data quality assessments, Rules).
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type KeyRow,
  type StageSlice,
} from '../assessment-rule.ts'
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
  query: (scope) => findings(scope, [candidates(scope), named(scope)]),
  // Program enrolments and the subject enrolments that name them meet by a body field, which no index
  // serves: each side's narrow rows read in key slices of the working copy, then the anti-join over
  // those rows alone (issue 30).
  keyed: {
    pieces: [
      { type: 'ProgramEnrolment', keys: candidates },
      { type: 'SubjectEnrolment', keys: named },
    ],
    query: findings,
  },
})

/**
 * The program enrolments under the jurisdiction, commenced by the period's end, still Commenced then and
 * not completed before it began: the key is the commencement date the message gives.
 */
function candidates(scope: AssessmentScope, slice?: StageSlice): RawBuilder<KeyRow> {
  return sql<KeyRow>`
    SELECT pe.uid, pe.ctid AS change_tracking_identifier, pe.client, pe.body->>'commencementDate' AS key, true AS in_period
      FROM ${held(scope, 'ProgramEnrolment', slice)} AS pe
     WHERE pe.jurisdiction = ${scope.jurisdiction}
       AND pe.body->>'commencementDate' <= ${scope.periodEnd}
       AND ${stateAt(scope, 'pe', 'periodEnd')} = 'Commenced'
       AND coalesce(pe.body->'programCompletion'->>'dateProgramCompleted', '9999-12-31') >= ${scope.periodStart}`
}

/** The subject enrolments of the period that name a program enrolment: the key is its UID as given. */
function named(scope: AssessmentScope, slice?: StageSlice): RawBuilder<KeyRow> {
  return sql<KeyRow>`
    SELECT se.uid, se.ctid AS change_tracking_identifier, se.client, se.body->>'programEnrolmentUID' AS key, true AS in_period
      FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
     WHERE se.body->>'programEnrolmentUID' IS NOT NULL`
}

/** The candidates no subject enrolment of the period names. */
function findings(
  scope: AssessmentScope,
  [candidateRows, namedRows]: readonly RawBuilder<KeyRow>[],
): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
           pe.change_tracking_identifier, pe.client AS submitted_by_client,
           format('program enrolment commenced on %s is Commenced at %s but none of its subject enrolments has activity in %s.',
                  pe.key, ${scope.periodEnd}::text, ${scope.period}::int) AS message
      FROM (${candidateRows!}) AS pe
     WHERE NOT EXISTS (SELECT 1 FROM (${namedRows!}) AS se WHERE se.key = pe.uid::text)`
}
