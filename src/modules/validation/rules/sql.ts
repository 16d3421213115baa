// SQL building blocks the set rules share. Every block is scoped to the run's RTO (and batch), and
// values reach the database as parameters; only the code's own table aliases are spliced in.
// Cross-module reads, on purpose: set rules (these blocks and the rules' own queries) read what batches
// and holdings publish for it (the views batch_content, held_current and held_in_submission, never
// their tables), one query over the whole batch and the held dataset, where going through those
// modules would mean a round trip per record (docs/decisions.md, "Architecture: shared kernel and
// module boundaries"; test/sql-boundaries.test.ts).
import { sql, type RawBuilder } from 'kysely'
import type { ResourceType } from '../../../domain/resource-types.ts'
import type { KeySlice, RunScope } from '../rule.ts'

/** The batch's records of one type (of one key slice of them, when given): uid, ctid, body, is_voided. */
export function batchRecordsOf(scope: RunScope, type: ResourceType, slice?: KeySlice): RawBuilder<unknown> {
  return sql`(SELECT resource_uid AS uid, change_tracking_identifier AS ctid, body, is_voided
      FROM batch_content
     WHERE rto_id = ${scope.rto} AND transaction_batch_token = ${scope.token} AND resource_type = ${type}
       AND ${inSlice(sql`resource_uid`, slice)})`
}

/** Whether a batch record's UID (`uid`) is in the key slice (true without one): a range of the batch's key. */
export function inSlice(uid: RawBuilder<unknown>, slice?: KeySlice): RawBuilder<boolean> {
  const after = slice?.after === undefined ? sql`true` : sql`${uid} > ${slice.after}::uuid`
  const upTo = slice?.upTo === undefined ? sql`true` : sql`${uid} <= ${slice.upTo}::uuid`
  return sql<boolean>`${after} AND ${upTo}`
}

/**
 * Records of one type as they will stand once the batch is submitted: the batch's own (not voided),
 * and the RTO's held records in submission that the batch does not replace or void. Each row says
 * where it came from (source: Transaction_batch or Previously_submitted_data). With a key slice, those
 * of both whose UID is in its range: the slices of the batch's records of the type divide the held
 * records by the same UIDs (a held record and the batch record that replaces it share one), so every
 * slice together is the whole, each slice's held share in proportion to the held records' number.
 */
export function effectiveRecordsOf(scope: RunScope, type: ResourceType, slice?: KeySlice): RawBuilder<unknown> {
  return sql`(
    SELECT resource_uid AS uid, change_tracking_identifier AS ctid, body, 'Transaction_batch' AS source
      FROM batch_content
     WHERE rto_id = ${scope.rto} AND transaction_batch_token = ${scope.token} AND resource_type = ${type} AND NOT is_voided
       AND ${inSlice(sql`resource_uid`, slice)}
    UNION ALL
    SELECT h.resource_uid, h.change_tracking_identifier, h.body, 'Previously_submitted_data'
      FROM held_in_submission h
     WHERE h.rto_id = ${scope.rto} AND h.resource_type = ${type} AND ${inSlice(sql`h.resource_uid`, slice)}
       AND NOT EXISTS (
         SELECT 1 FROM batch_content b
          WHERE b.rto_id = h.rto_id AND b.transaction_batch_token = ${scope.token}
            AND b.resource_type = h.resource_type AND b.resource_uid = h.resource_uid))`
}

/** Whether a record of the type is held for the RTO and in submission (not voided). */
export function heldInSubmission(scope: RunScope, type: ResourceType, uid: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (
    SELECT 1 FROM held_in_submission h
     WHERE h.rto_id = ${scope.rto} AND h.resource_type = ${type} AND h.resource_uid = ${uid})`
}

/**
 * The UIDs one reference field of the record aliased `alias` holds, each with its access path, as a
 * lateral table `(target uuid, path text)` named `as`. `locations[].deliveryLocationUID` reads the
 * field in every item of the array.
 */
export function referencesOf(alias: string, field: string, as: string): RawBuilder<unknown> {
  const record = sql.raw(alias)
  const array = /^(\w+)\[\]\.(\w+)$/.exec(field)
  if (array) {
    const [, list, key] = array as unknown as [string, string, string]
    return sql`LATERAL (
      SELECT (e.value->>${key})::uuid AS target, ${`$.${list}[`}::text || (e.n - 1) || ${`].${key}`}::text AS path
        FROM jsonb_array_elements(${record}.body->${list}) WITH ORDINALITY AS e(value, n)) AS ${sql.raw(as)}`
  }
  return sql`LATERAL (
    SELECT (${record}.body->>${field})::uuid AS target, ${`$.${field}`}::text AS path
     WHERE ${record}.body->>${field} IS NOT NULL) AS ${sql.raw(as)}`
}

/** The latest lifecycle state of an enrolment: the entry with the latest date (later in the array on a tie). */
export function latestStatusOf(alias: string): RawBuilder<string> {
  return sql<string>`(
    SELECT l.value->>'studentStatus'
      FROM jsonb_array_elements(${sql.raw(alias)}.body->'lifecycle') WITH ORDINALITY AS l(value, n)
     ORDER BY l.value->>'studentActivityDate' DESC, l.n DESC
     LIMIT 1)`
}
