// BRTS01440: a program enrolment has at least one subject enrolment (spec: Enrolment lifecycle,
// rules). Checked for the batch's program enrolments, and for held ones whose subject enrolments the
// batch changes or voids (spec: voiding a subject enrolment may require updating its program enrolment).
// The batch's subject enrolments that referenced a failing program enrolment when held and no longer
// do (voided, or pointed elsewhere) caused the failure: they are in its group (at $.isVoided or
// $.programEnrolmentUID), so relatedValidationResultCount counts them.
import { sql } from 'kysely'
import { defineSetRule, type SetFindingRow } from '../rule.ts'
import { effectiveRecordsOf } from './sql.ts'

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
  query: (scope) => sql<SetFindingRow>`
    WITH subject_links AS (
      SELECT DISTINCT (se.body->>'programEnrolmentUID')::uuid AS program_uid
        FROM ${effectiveRecordsOf(scope, 'SubjectEnrolment')} AS se
       WHERE se.body->>'programEnrolmentUID' IS NOT NULL),
    dropped AS (
      SELECT (h.body->>'programEnrolmentUID')::uuid AS program_uid, b.resource_uid AS uid,
             b.change_tracking_identifier AS ctid, b.is_voided
        FROM held_current h JOIN batch_content b
          ON b.rto_id = h.rto_id AND b.transaction_batch_token = ${scope.token} AND b.resource_type = h.resource_type AND b.resource_uid = h.resource_uid
       WHERE h.rto_id = ${scope.rto} AND h.resource_type = 'SubjectEnrolment' AND h.body->>'programEnrolmentUID' IS NOT NULL
         AND (b.is_voided OR b.body->>'programEnrolmentUID' IS DISTINCT FROM h.body->>'programEnrolmentUID')),
    failing AS (
      SELECT pe.uid, pe.ctid, pe.source
        FROM ${effectiveRecordsOf(scope, 'ProgramEnrolment')} AS pe
       WHERE (pe.source = 'Transaction_batch' OR pe.uid IN (SELECT program_uid FROM dropped))
         AND pe.uid NOT IN (SELECT program_uid FROM subject_links))
    SELECT f.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, f.uid AS resource_uid,
           ARRAY['$.programEnrolmentUID'] AS access_path, f.ctid AS change_tracking_identifier, f.source AS data_source,
           'no subject enrolment, in this batch or previously submitted, references this program enrolment.' AS message
      FROM failing f
    UNION ALL
    SELECT f.uid::text, 'SubjectEnrolment', d.uid,
           CASE WHEN d.is_voided THEN ARRAY['$.isVoided'] ELSE ARRAY['$.programEnrolmentUID'] END, d.ctid, 'Transaction_batch',
           CASE WHEN d.is_voided
                THEN format('voided in this batch, it was the last subject enrolment of program enrolment %s.', f.uid)
                ELSE format('no longer references program enrolment %s, of which it was the last subject enrolment.', f.uid) END
      FROM failing f JOIN dropped d ON d.program_uid = f.uid`,
})
