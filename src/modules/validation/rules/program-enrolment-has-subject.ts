// BRTS01440: a program enrolment has at least one subject enrolment (spec: Enrolment lifecycle,
// rules). Checked for the batch's program enrolments, and for held ones whose subject enrolments the
// batch changes or voids (spec: voiding a subject enrolment may require updating its program enrolment).
import { sql } from 'kysely'
import { defineSetRule, type SetFindingRow } from '../rule.ts'
import { effectiveRecordsOf } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS01440',
  ruleId: 'BRDG00044',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment'],
  title: 'A program enrolment has a subject enrolment',
  description:
    'Every program enrolment that stands after submission is referenced by at least one subject enrolment (programEnrolmentUID), in the batch or held.',
  correctiveAction:
    'Upload the subject enrolments of the program enrolment (with programEnrolmentUID set) in the same batch.',
  query: (scope) => sql<SetFindingRow>`
    WITH subject_links AS (
      SELECT DISTINCT (se.body->>'programEnrolmentUID')::uuid AS program_uid
        FROM ${effectiveRecordsOf(scope, 'SubjectEnrolment')} AS se
       WHERE se.body->>'programEnrolmentUID' IS NOT NULL),
    touched AS (
      SELECT DISTINCT (h.body->>'programEnrolmentUID')::uuid AS program_uid
        FROM held_record h JOIN batch_record b
          ON b.rto_id = h.rto_id AND b.transaction_batch_token = ${scope.token} AND b.resource_type = h.resource_type AND b.resource_uid = h.resource_uid
       WHERE h.rto_id = ${scope.rto} AND h.resource_type = 'SubjectEnrolment' AND h.is_current AND h.body->>'programEnrolmentUID' IS NOT NULL)
    SELECT pe.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, pe.uid AS resource_uid,
           ARRAY['$.programEnrolmentUID'] AS access_path, pe.ctid AS change_tracking_identifier, pe.source AS data_source,
           'no subject enrolment, in this batch or previously submitted, references this program enrolment.' AS message
      FROM ${effectiveRecordsOf(scope, 'ProgramEnrolment')} AS pe
     WHERE (pe.source = 'Transaction_batch' OR pe.uid IN (SELECT program_uid FROM touched))
       AND pe.uid NOT IN (SELECT program_uid FROM subject_links)`,
})
