// What voiding a record leaves behind: the records (in the batch, or held and not replaced by it) that
// would still reference it. Shared by BRTS02180 and the general orphan rule BRTS02190. One group per
// voided record: the voided record itself (from the batch) and every record still referencing it.
import { sql, type RawBuilder } from 'kysely'
import type { ResourceType } from '../../../domain/resource-types.ts'
import type { RunScope, SetFindingRow } from '../rule.ts'
import { batchRecordsOf, effectiveRecordsOf, referencesOf } from './sql.ts'

export interface Reference {
  source: ResourceType
  field: string
  target: ResourceType
}

export function orphanQuery(scope: RunScope, references: readonly Reference[]): RawBuilder<SetFindingRow> {
  const hits = references.map(
    ({ source, field, target }) => sql`
    SELECT ${target}::text AS target_type, v.uid AS target_uid, v.ctid AS target_ctid,
           ${source}::text AS source_type, d.uid AS source_uid, d.ctid AS source_ctid, d.source AS source, ref.path
      FROM ${batchRecordsOf(scope, target)} AS v
      JOIN (${effectiveRecordsOf(scope, source)} AS d CROSS JOIN ${referencesOf('d', field, 'ref')}) ON ref.target = v.uid
     WHERE v.is_voided`,
  )
  return sql<SetFindingRow>`
    WITH hits AS (${sql.join(hits, sql` UNION ALL `)})
    SELECT target_type || ':' || target_uid AS group_key, target_type AS resource_type, target_uid AS resource_uid,
           ARRAY['$.isVoided', '$.voidedReason'] AS access_path, target_ctid AS change_tracking_identifier,
           'Transaction_batch' AS data_source,
           format('%s %s is voided in this batch, but %s record(s) still reference it.', target_type, target_uid, count(*)) AS message
      FROM hits
     GROUP BY target_type, target_uid, target_ctid
    UNION ALL
    SELECT target_type || ':' || target_uid, source_type, source_uid, array_agg(path ORDER BY path), source_ctid, source,
           format('%s %s still references %s %s, which is voided in this batch (at %s).', source_type, source_uid, target_type, target_uid, string_agg(path, ', ' ORDER BY path))
      FROM hits
     GROUP BY target_type, target_uid, source_type, source_uid, source_ctid, source`
}
