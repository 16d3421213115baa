// BRTS01450: every upload carries the complete lifecycle history (spec: Enrolment lifecycle, rules):
// a state already submitted (its status on its date) cannot disappear from a later version.
import { sql } from 'kysely'
import { defineSetRule, type SetFindingRow } from '../rule.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS01450',
  ruleId: 'BRDG00045',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'Submitted lifecycle states are kept',
  description:
    'An enrolment re-uploaded over a held version keeps every lifecycle state of that version (the same studentStatus on the same studentActivityDate).',
  correctiveAction: 'Upload the complete lifecycle history: every state submitted before, plus the new ones.',
  query: (scope) => sql<SetFindingRow>`
    SELECT b.resource_type || ':' || b.resource_uid AS group_key, b.resource_type, b.resource_uid,
           ARRAY['$.lifecycle'] AS access_path, b.change_tracking_identifier, 'Transaction_batch' AS data_source,
           format('the lifecycle leaves out state(s) already submitted: %s.', string_agg(old.value->>'studentStatus' || ' on ' || (old.value->>'studentActivityDate'), ', ' ORDER BY old.n)) AS message
      FROM batch_content b
      JOIN held_current h ON h.rto_id = b.rto_id AND h.resource_type = b.resource_type AND h.resource_uid = b.resource_uid
      CROSS JOIN LATERAL jsonb_array_elements(h.body->'lifecycle') WITH ORDINALITY AS old(value, n)
     WHERE b.rto_id = ${scope.rto} AND b.transaction_batch_token = ${scope.token}
       AND b.resource_type IN ('ProgramEnrolment', 'SubjectEnrolment') AND NOT b.is_voided
       AND NOT EXISTS (
         SELECT 1 FROM jsonb_array_elements(b.body->'lifecycle') AS new(value)
          WHERE new.value->>'studentStatus' = old.value->>'studentStatus'
            AND new.value->>'studentActivityDate' = old.value->>'studentActivityDate')
     GROUP BY b.resource_type, b.resource_uid, b.change_tracking_identifier`,
})
