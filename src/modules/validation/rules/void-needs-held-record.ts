// BRTS02200: only records held by the service can be voided (spec: Standard workflows 3).
import { sql, type RawBuilder } from 'kysely'
import { resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule, type KeySlice, type RunScope, type SetFindingRow } from '../rule.ts'
import { inSlice } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS02200',
  ruleId: 'BRDG00053',
  level: 'Error',
  resourceTypes, // every type
  title: 'Only a held record can be voided',
  description:
    'A record uploaded with isVoided true must be held for the RTO and in submission (submitted earlier and not voided since).',
  correctiveAction:
    'Delete the record from the batch instead: a record never submitted, or already voided, has nothing to void.',
  query: (scope) => voidsNotHeld(scope),
  // One record per group: a part per type, in key slices of its records (issue 30).
  slicedParts: (scope) => resourceTypes.map((type) => ({ type, query: (slice) => voidsNotHeld(scope, slice) })),
})

/** The batch's voids (of one type's key slice, when given) of records not in submission. */
function voidsNotHeld(scope: RunScope, slice?: KeySlice): RawBuilder<SetFindingRow> {
  return sql<SetFindingRow>`
    SELECT b.resource_type || ':' || b.resource_uid AS group_key, b.resource_type, b.resource_uid,
           ARRAY['$.isVoided'] AS access_path, b.change_tracking_identifier, 'Transaction_batch' AS data_source,
           format('%s %s is voided, but no record with this UID is in submission for this RTO (%s).', b.resource_type, b.resource_uid,
                  coalesce(h.state_in_submission, 'Not found in submission')) AS message
      FROM batch_content b
      LEFT JOIN held_current h ON h.rto_id = b.rto_id AND h.resource_type = b.resource_type AND h.resource_uid = b.resource_uid
     WHERE b.rto_id = ${scope.rto} AND b.transaction_batch_token = ${scope.token} AND b.is_voided
       AND (h.state_in_submission IS NULL OR h.state_in_submission <> 'In submission')
       AND ${slice === undefined ? sql`true` : sql`b.resource_type = ${slice.type} AND ${inSlice(sql`b.resource_uid`, slice)}`}`
}
