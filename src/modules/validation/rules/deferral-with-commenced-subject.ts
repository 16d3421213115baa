// BRTS01430: a program enrolment may be Deferred only while none of its subject enrolments has
// Commenced as its latest state (spec: Enrolment lifecycle). The subject enrolments are those that
// will stand after submission: in the batch, or held and not replaced by it.
import { sql } from 'kysely'
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
  query: (scope) => sql<SetFindingRow>`
    WITH deferred AS (
      SELECT pe.uid, pe.ctid FROM ${batchRecordsOf(scope, 'ProgramEnrolment')} AS pe
       WHERE NOT pe.is_voided AND ${latestStatusOf('pe')} = 'Deferred'),
    commenced AS (
      SELECT p.uid AS program_uid, se.uid, se.ctid, se.source
        FROM deferred p JOIN ${effectiveRecordsOf(scope, 'SubjectEnrolment')} AS se ON (se.body->>'programEnrolmentUID')::uuid = p.uid
       WHERE ${latestStatusOf('se')} = 'Commenced')
    SELECT p.uid::text AS group_key, 'ProgramEnrolment' AS resource_type, p.uid AS resource_uid,
           ARRAY['$.lifecycle'] AS access_path, p.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source,
           format('the program enrolment is Deferred while %s of its subject enrolments are Commenced.', count(*)) AS message
      FROM deferred p JOIN commenced c ON c.program_uid = p.uid
     GROUP BY p.uid, p.ctid
    UNION ALL
    SELECT c.program_uid::text, 'SubjectEnrolment', c.uid, ARRAY['$.lifecycle', '$.programEnrolmentUID'], c.ctid, c.source,
           format('the subject enrolment is Commenced while its program enrolment %s is Deferred.', c.program_uid)
      FROM commenced c`,
})
