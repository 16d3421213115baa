// What voiding a record leaves behind: the records (in the batch, or held and not replaced by it) that
// would still reference it. Shared by BRTS02180 and the general orphan rule BRTS02190. One group per
// voided record: the voided record itself (from the batch) and every record still referencing it.
import { sql, type RawBuilder } from 'kysely'
import type { ResourceType } from '../../../domain/resource-types.ts'
import type { RunScope, SetFindingRow, SlicedPart } from '../rule.ts'
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

/**
 * The orphan query in key slices (issue 30; SetRule.slicedParts and fromPieces): first the batch's
 * voided records of every referenced type (a part per type, slices of its records: few rows), then a
 * part per reference, each slice of its source records (the records that stand, batch and held) joined
 * with those voided rows: a row per reference to a voided record, its path kept as the message. The
 * groups are then counted over those rows (`orphanFromPieces`), as `orphanQuery` counts its hits.
 */
export function orphanSlicedParts(scope: RunScope, references: readonly Reference[]): SlicedPart[] {
  const targets = targetTypes(references)
  const voided = targets.map(
    (target): SlicedPart => ({
      type: target,
      query: (slice) => sql<SetFindingRow>`
        SELECT ${target}::text || ':' || v.uid AS group_key, ${target}::text AS resource_type, v.uid AS resource_uid,
               ARRAY['$.isVoided', '$.voidedReason'] AS access_path, v.ctid AS change_tracking_identifier,
               'Transaction_batch' AS data_source, NULL AS message
          FROM ${batchRecordsOf(scope, target, slice)} AS v
         WHERE v.is_voided`,
    }),
  )
  const hits = references.map(
    ({ source, field, target }): SlicedPart => ({
      type: source,
      query: (slice, pieces) => sql<SetFindingRow>`
        SELECT v.group_key, ${source}::text AS resource_type, d.uid AS resource_uid, ARRAY[ref.path] AS access_path,
               d.ctid AS change_tracking_identifier, d.source AS data_source, ref.path AS message
          FROM ${pieces} AS v
          JOIN (${effectiveRecordsOf(scope, source, slice)} AS d CROSS JOIN ${referencesOf('d', field, 'ref')}) ON ref.target = v.resource_uid
         WHERE v.part_ord < ${targets.length}::int AND v.resource_type = ${target}`,
    }),
  )
  return [...voided, ...hits]
}

/** The orphan rule's rows from its pieces (orphanSlicedParts with the same references). */
export function orphanFromPieces(
  references: readonly Reference[],
  pieces: RawBuilder<unknown>,
): RawBuilder<SetFindingRow> {
  const targets = targetTypes(references).length
  return sql<SetFindingRow>`
    WITH v AS (SELECT * FROM ${pieces} WHERE part_ord < ${targets}::int),
    hits AS (SELECT * FROM ${pieces} WHERE part_ord >= ${targets}::int)
    SELECT v.group_key, v.resource_type, v.resource_uid, v.access_path, v.change_tracking_identifier, v.data_source,
           format('%s %s is voided in this batch, but %s record(s) still reference it.', v.resource_type, v.resource_uid, count(*)) AS message
      FROM v JOIN hits h ON h.group_key = v.group_key
     GROUP BY v.group_key, v.resource_type, v.resource_uid, v.access_path, v.change_tracking_identifier, v.data_source
    UNION ALL
    SELECT h.group_key, h.resource_type, h.resource_uid, array_agg(h.message ORDER BY h.message), h.change_tracking_identifier, h.data_source,
           format('%s %s still references %s %s, which is voided in this batch (at %s).', h.resource_type, h.resource_uid, v.resource_type, v.resource_uid,
                  string_agg(h.message, ', ' ORDER BY h.message))
      FROM hits h JOIN v ON v.group_key = h.group_key
     GROUP BY h.group_key, v.resource_type, v.resource_uid, h.resource_type, h.resource_uid, h.change_tracking_identifier, h.data_source`
}

/** The types the references point at, each once, in the order first named. */
function targetTypes(references: readonly Reference[]): ResourceType[] {
  return [...new Set(references.map(({ target }) => target))]
}
