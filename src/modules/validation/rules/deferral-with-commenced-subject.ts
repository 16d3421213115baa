// BRTS01430: a program enrolment may be Deferred only while none of its subject enrolments has
// Commenced as its latest state (spec: Enrolment lifecycle). The subject enrolments are those that
// will stand after submission: in the batch, or held and not replaced by it.
import { sql, type RawBuilder } from 'kysely'
import { defineSetRule, type SetFindingRow } from '../rule.ts'
import { batchRecordsOf, effectiveRecordsOf, latestStatusOf } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS01430',
  ruleId: 'BRDG00043',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'No deferral while a subject enrolment is Commenced',
  description:
    'A program enrolment whose latest lifecycle state is Deferred has no subject enrolment whose latest state is Commenced.',
  correctiveAction:
    'Cancel or complete the commenced subject enrolments first (in the same batch), or do not defer the program enrolment.',
  // In key slices (issue 30): the batch's deferred program enrolments (part 0, slices of the program
  // enrolments; few), then the commenced subject enrolments that stand under one of them (part 1, slices
  // of the subject enrolments, each joined with part 0's rows), reported as they are; the program
  // enrolments' rows are counted from part 1's.
  slicedParts: (scope) => [
    {
      type: 'ProgramEnrolment',
      query: (slice) => sql<SetFindingRow>`
        SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
               ${PROGRAM_ACCESS_PATH} AS access_path, pe.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source, NULL AS message
          FROM ${batchRecordsOf(scope, 'ProgramEnrolment', slice)} AS pe
         WHERE NOT pe.is_voided AND ${latestStatusOf('pe')} = 'Deferred'`,
    },
    {
      type: 'SubjectEnrolment',
      query: (slice, pieces) => sql<SetFindingRow>`
        SELECT p.group_key, 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid, ${SUBJECT_ACCESS_PATH} AS access_path,
               se.ctid AS change_tracking_identifier, se.source AS data_source, ${subjectMessage(sql`p.resource_uid`)} AS message
          FROM ${pieces} AS p JOIN ${effectiveRecordsOf(scope, 'SubjectEnrolment', slice)} AS se
            ON (se.body->>'programEnrolmentUID')::uuid = p.resource_uid
         WHERE p.part_ord = 0 AND ${latestStatusOf('se')} = 'Commenced'`,
    },
  ],
  fromPieces: (_scope, pieces) => sql<SetFindingRow>`
    SELECT p.group_key, p.resource_type, p.resource_uid, p.access_path, p.change_tracking_identifier, p.data_source,
           ${programMessage} AS message
      FROM ${pieces} AS p JOIN ${pieces} AS c ON c.part_ord = 1 AND c.group_key = p.group_key
     WHERE p.part_ord = 0
     GROUP BY p.group_key, p.resource_type, p.resource_uid, p.access_path, p.change_tracking_identifier, p.data_source
    UNION ALL
    SELECT c.group_key, c.resource_type, c.resource_uid, c.access_path, c.change_tracking_identifier, c.data_source, c.message
      FROM ${pieces} AS c WHERE c.part_ord = 1`,
  query: (scope) => sql<SetFindingRow>`
    WITH deferred AS (
      SELECT pe.uid, pe.ctid FROM ${batchRecordsOf(scope, 'ProgramEnrolment')} AS pe
       WHERE NOT pe.is_voided AND ${latestStatusOf('pe')} = 'Deferred'),
    commenced AS (
      SELECT p.uid AS program_uid, se.uid, se.ctid, se.source
        FROM deferred p JOIN ${effectiveRecordsOf(scope, 'SubjectEnrolment')} AS se ON (se.body->>'programEnrolmentUID')::uuid = p.uid
       WHERE ${latestStatusOf('se')} = 'Commenced')
    SELECT p.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, p.uid AS resource_uid,
           ${PROGRAM_ACCESS_PATH} AS access_path, p.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source,
           ${programMessage} AS message
      FROM deferred p JOIN commenced c ON c.program_uid = p.uid
     GROUP BY p.uid, p.ctid
    UNION ALL
    SELECT c.program_uid::text, 'SubjectEnrolment', c.uid, ${SUBJECT_ACCESS_PATH}, c.ctid, c.source, ${subjectMessage(sql`c.program_uid`)}
      FROM commenced c`,
})

const PROGRAM_ACCESS_PATH = sql`ARRAY['$.lifecycle']`
const SUBJECT_ACCESS_PATH = sql`ARRAY['$.lifecycle', '$.programEnrolmentUID']`
/** A deferred program enrolment's message, counting its commenced subject enrolments (the rows grouped). */
const programMessage = sql<string>`format('the program enrolment is Deferred while %s of its subject enrolments are Commenced.', count(*))`

function subjectMessage(program: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`format('the subject enrolment is Commenced while its program enrolment %s is Deferred.', ${program})`
}
