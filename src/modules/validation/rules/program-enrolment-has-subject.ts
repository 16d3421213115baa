// BRTS01440: a program enrolment has at least one subject enrolment (spec: Enrolment lifecycle,
// rules). Checked for the batch's program enrolments, and for held ones whose subject enrolments the
// batch changes or voids (spec: voiding a subject enrolment may require updating its program enrolment).
// The batch's subject enrolments that referenced a failing program enrolment when held and no longer
// do (voided, or pointed elsewhere) caused the failure: they are in its group (at $.isVoided or
// $.programEnrolmentUID), so relatedValidationResultCount counts them.
import { sql, type RawBuilder } from 'kysely'
import { defineSetRule, type KeySlice, type RunScope, type SetFindingRow } from '../rule.ts'
import { effectiveRecordsOf, inSlice } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS01440',
  ruleId: 'BRDG00044',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'A program enrolment has a subject enrolment',
  description:
    "Every program enrolment that stands after submission is referenced by at least one subject enrolment (programEnrolmentUID), in the batch or held. The batch's subject enrolments that referenced it and no longer do (voided, or re-uploaded pointing elsewhere) are reported with it, in its group.",
  correctiveAction:
    'Upload the subject enrolments of the program enrolment (with programEnrolmentUID set) in the same batch.',
  // In key slices (issue 30), three parts whose rows the groups are found from: every program enrolment
  // UID a subject enrolment that stands references (part 0, slices of the subject enrolments), the
  // batch's subject enrolments that dropped a held reference (part 1, the same slices: their rows as
  // reported, the group key the program enrolment they dropped), and every program enrolment that stands
  // (part 2, slices of the program enrolments). UIDs are kept as text in their canonical form.
  slicedParts: (scope) => [
    {
      type: 'SubjectEnrolment',
      query: (slice) => sql<SetFindingRow>`
        SELECT DISTINCT (se.body->>'programEnrolmentUID')::uuid::text AS group_key, NULL AS resource_type, NULL::uuid AS resource_uid,
               NULL::text[] AS access_path, NULL AS change_tracking_identifier, NULL AS data_source, NULL AS message
          FROM ${effectiveRecordsOf(scope, 'SubjectEnrolment', slice)} AS se
         WHERE se.body->>'programEnrolmentUID' IS NOT NULL`,
    },
    {
      type: 'SubjectEnrolment',
      query: (slice) => sql<SetFindingRow>`
        SELECT d.program_uid::text AS group_key, 'SubjectEnrolment' AS resource_type, d.uid AS resource_uid,
               ${droppedAccessPath('d')} AS access_path, d.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source,
               ${droppedMessage('d', sql`d.program_uid`)} AS message
          FROM ${dropped(scope, slice)} AS d`,
    },
    {
      type: 'ProgramEnrolment',
      query: (slice) => sql<SetFindingRow>`
        SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
               ${ACCESS_PATH} AS access_path, pe.ctid AS change_tracking_identifier, pe.source AS data_source, ${MESSAGE} AS message
          FROM ${effectiveRecordsOf(scope, 'ProgramEnrolment', slice)} AS pe`,
    },
  ],
  fromPieces: (_scope, pieces) => sql<SetFindingRow>`
    WITH failing AS (
      SELECT pe.* FROM ${pieces} AS pe
       WHERE pe.part_ord = 2
         AND (pe.data_source = 'Transaction_batch' OR pe.group_key IN (SELECT d.group_key FROM ${pieces} AS d WHERE d.part_ord = 1))
         AND pe.group_key NOT IN (SELECT l.group_key FROM ${pieces} AS l WHERE l.part_ord = 0))
    SELECT f.group_key, f.resource_type, f.resource_uid, f.access_path, f.change_tracking_identifier, f.data_source, f.message
      FROM failing f
    UNION ALL
    SELECT d.group_key, d.resource_type, d.resource_uid, d.access_path, d.change_tracking_identifier, d.data_source, d.message
      FROM failing f JOIN ${pieces} AS d ON d.part_ord = 1 AND d.group_key = f.group_key`,
  query: (scope) => sql<SetFindingRow>`
    WITH subject_links AS (
      SELECT DISTINCT (se.body->>'programEnrolmentUID')::uuid AS program_uid
        FROM ${effectiveRecordsOf(scope, 'SubjectEnrolment')} AS se
       WHERE se.body->>'programEnrolmentUID' IS NOT NULL),
    dropped AS ${dropped(scope)},
    failing AS (
      SELECT pe.uid, pe.ctid, pe.source
        FROM ${effectiveRecordsOf(scope, 'ProgramEnrolment')} AS pe
       WHERE (pe.source = 'Transaction_batch' OR pe.uid IN (SELECT program_uid FROM dropped))
         AND pe.uid NOT IN (SELECT program_uid FROM subject_links))
    SELECT f.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, f.uid AS resource_uid,
           ${ACCESS_PATH} AS access_path, f.ctid AS change_tracking_identifier, f.source AS data_source,
           ${MESSAGE} AS message
      FROM failing f
    UNION ALL
    SELECT f.uid::text, 'SubjectEnrolment', d.uid, ${droppedAccessPath('d')}, d.ctid, 'Transaction_batch', ${droppedMessage('d', sql`f.uid`)}
      FROM failing f JOIN dropped d ON d.program_uid = f.uid`,
})

const ACCESS_PATH = sql`ARRAY['$.programEnrolmentUID']`
const MESSAGE = sql`'no subject enrolment, in this batch or previously submitted, references this program enrolment.'`

/**
 * The batch's subject enrolments (of a key slice of them, when given) that referenced a program
 * enrolment when held and no longer do: program_uid, uid, ctid, is_voided.
 */
function dropped(scope: RunScope, slice?: KeySlice): RawBuilder<unknown> {
  return sql`(
      SELECT (h.body->>'programEnrolmentUID')::uuid AS program_uid, b.resource_uid AS uid,
             b.change_tracking_identifier AS ctid, b.is_voided
        FROM held_current h JOIN batch_content b
          ON b.rto_id = h.rto_id AND b.transaction_batch_token = ${scope.token} AND b.resource_type = h.resource_type AND b.resource_uid = h.resource_uid
       WHERE h.rto_id = ${scope.rto} AND h.resource_type = 'SubjectEnrolment' AND h.body->>'programEnrolmentUID' IS NOT NULL
         AND ${inSlice(sql`b.resource_uid`, slice)}
         AND (b.is_voided OR b.body->>'programEnrolmentUID' IS DISTINCT FROM h.body->>'programEnrolmentUID'))`
}

function droppedAccessPath(alias: string): RawBuilder<string[]> {
  return sql`CASE WHEN ${sql.raw(alias)}.is_voided THEN ARRAY['$.isVoided'] ELSE ARRAY['$.programEnrolmentUID'] END`
}

/** What a dropped subject enrolment (aliased `alias`) did to program enrolment `program`. */
function droppedMessage(alias: string, program: RawBuilder<unknown>): RawBuilder<string> {
  return sql`CASE WHEN ${sql.raw(alias)}.is_voided
                  THEN format('voided in this batch, it was the last subject enrolment of program enrolment %s.', ${program})
                  ELSE format('no longer references program enrolment %s, of which it was the last subject enrolment.', ${program}) END`
}
