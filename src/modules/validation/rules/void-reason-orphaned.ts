// BRTS02210: a record voided because what it depends on is voided says so (spec: Resources, voidedReason
// remove_orphaned_record; Standard workflows 3, "include every dependent resource that would otherwise
// be orphaned (voided with remove_orphaned_record)"). The service cannot read intent, so "voided only
// because what it depended on was voided" is taken from the data: a record voided in the batch that
// references a record voided in the same batch, or one already voided in submission, would be an orphan
// whatever else is true of it, and its void is that orphan's removal. Its voidedReason must be
// remove_orphaned_record; remove_duplicate_record is blocking. One group per such void: the record whose
// reason is wrong, then each voided record it references (docs/decisions.md, Validation, The reason
// for a void).
import { sql } from 'kysely'
import { referenceFields, resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule, type RunScope, type SetFindingRow } from '../rule.ts'
import { batchRecordsOf, referencesOf } from './sql.ts'

const ORPHANED = 'remove_orphaned_record'

/** Every voided record of the batch with a reference to a voided record: one row per reference. */
function voidedReferences(scope: RunScope) {
  const hits = resourceTypes.flatMap((source) =>
    referenceFields[source].map(
      ({ field, references: target }) => sql`
    SELECT ${source}::text AS source_type, r.uid AS source_uid, r.ctid AS source_ctid, r.body->>'voidedReason' AS reason, ref.path,
           ${target}::text AS target_type, t.uid AS target_uid, t.ctid AS target_ctid, t.data_source AS target_source
      FROM ${batchRecordsOf(scope, source)} AS r
     CROSS JOIN ${referencesOf('r', field, 'ref')}
      JOIN (
        SELECT resource_uid AS uid, change_tracking_identifier AS ctid, 'Transaction_batch' AS data_source
          FROM batch_content
         WHERE rto_id = ${scope.rto} AND transaction_batch_token = ${scope.token} AND resource_type = ${target} AND is_voided
        UNION ALL
        SELECT h.resource_uid, h.change_tracking_identifier, 'Previously_submitted_data'
          FROM held_current h
         WHERE h.rto_id = ${scope.rto} AND h.resource_type = ${target} AND h.state_in_submission = 'Voided in submission'
           AND NOT EXISTS (
             SELECT 1 FROM batch_content b
              WHERE b.rto_id = h.rto_id AND b.transaction_batch_token = ${scope.token}
                AND b.resource_type = h.resource_type AND b.resource_uid = h.resource_uid)
      ) AS t ON t.uid = ref.target
     WHERE r.is_voided AND r.body->>'voidedReason' IS DISTINCT FROM ${ORPHANED}`,
    ),
  )
  return sql.join(hits, sql` UNION ALL `)
}

export default defineSetRule({
  technicalRuleId: 'BRTS02210',
  ruleId: 'BRDG00054',
  level: 'Error',
  resourceTypes, // every type
  title: 'A record voided with what it depends on is voided as an orphan',
  description:
    'A record voided in the batch that references a record voided in the same batch, or a record already voided in submission, has voidedReason remove_orphaned_record: voiding what it depends on is why it goes. The record and each voided record it references are one group.',
  correctiveAction:
    'Re-upload the record with voidedReason remove_orphaned_record; or, if it should stay, re-upload it not voided and pointing at a record that stays.',
  query: (scope) => sql<SetFindingRow>`
    WITH hits AS (${voidedReferences(scope)})
    SELECT source_type || ':' || source_uid AS group_key, source_type AS resource_type, source_uid AS resource_uid,
           ARRAY['$.voidedReason'] || array_agg(path ORDER BY path) AS access_path, source_ctid AS change_tracking_identifier,
           'Transaction_batch' AS data_source,
           format('%s %s is voided with voidedReason %s, but it references %s: a record voided because what it depends on is voided takes remove_orphaned_record.',
                  source_type, source_uid, coalesce(reason, 'missing'),
                  string_agg(format('%s %s (%s, at %s)', target_type, target_uid,
                                    CASE WHEN target_source = 'Transaction_batch' THEN 'voided in this batch' ELSE 'already voided in submission' END, path),
                             ', ' ORDER BY path)) AS message
      FROM hits
     GROUP BY source_type, source_uid, source_ctid, reason
    UNION ALL
    SELECT DISTINCT source_type || ':' || source_uid, target_type, target_uid, ARRAY['$.isVoided'], target_ctid, target_source,
           format('%s %s is %s, so %s %s, which references it, is voided as an orphan.', target_type, target_uid,
                  CASE WHEN target_source = 'Transaction_batch' THEN 'voided in this batch' ELSE 'already voided in submission' END, source_type, source_uid)
      FROM hits`,
})
