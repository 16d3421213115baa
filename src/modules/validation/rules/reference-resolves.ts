// BRTS02100: every UID reference resolves to a record of the referenced type, in the batch or held for
// the RTO and not voided. The message says where the missing record was looked for.
import { sql, type RawBuilder } from 'kysely'
import { referenceFields, resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule, type KeySlice, type RunScope, type SetFindingRow, type SlicedPart } from '../rule.ts'
import { batchRecordsOf, heldInSubmission, referencesOf } from './sql.ts'

export default defineSetRule({
  technicalRuleId: 'BRTS02100',
  ruleId: 'BRDG00050',
  level: 'Error',
  resourceTypes: ['ProgramOffering', 'SubjectOffering', 'ProgramEnrolment', 'SubjectEnrolment'],
  title: 'A referenced record exists',
  description:
    'Every UID a record references (studentUID, programOfferingUID, locations[].deliveryLocationUID, ...) names a record of that type in this transaction batch or in the data previously submitted for the RTO, and not voided.',
  correctiveAction: 'Upload the referenced record in this batch, or correct the UID to one that exists.',
  // Each field's references are gathered first, in a materialised CTE, and then looked for in the batch
  // and the held data by anti joins over the whole set. Written as one correlated query, the planner
  // ran the look-up of a record's references per record (locations[] made it a scan of the batch for
  // each subject enrolment): 42 s for a 10,000-record batch on the embedded database (issue 30). A
  // group is one record's one reference, so each field is a part of its own (a statement each).
  query: (scope) =>
    sql.join(
      slicedPartsOf(scope).map((part) => sql`(${part.query({ type: part.type })})`),
      sql` UNION ALL `,
    ) as never,
  queryParts: (scope) => slicedPartsOf(scope).map((part) => part.query({ type: part.type })),
  // A group is one record's one reference: each part in slices of its records.
  slicedParts: slicedPartsOf,
})

/** A part of this rule reads no pieces: its rows are the rule's (no fromPieces). */
type Part = SlicedPart & { query(slice: KeySlice): RawBuilder<SetFindingRow> }

function slicedPartsOf(scope: RunScope): Part[] {
  return resourceTypes.flatMap((source) =>
    referenceFields[source].map(({ field, references }) => ({
      type: source,
      query: (slice: KeySlice) => sql<SetFindingRow>`
      WITH refs AS MATERIALIZED (
        SELECT r.uid, r.ctid, ref.target, ref.path
          FROM ${batchRecordsOf(scope, source, slice)} AS r CROSS JOIN ${referencesOf('r', field, 'ref')}
         WHERE NOT r.is_voided)
      SELECT f.uid::text || ${`:${field}:`}::text || f.path AS group_key, ${source}::text AS resource_type, f.uid AS resource_uid,
             ARRAY[f.path] AS access_path, f.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source,
             format('%s %s is not in this transaction batch nor in the data previously submitted for this RTO (or it is voided there).',
                    f.path, f.target) AS message
        FROM refs AS f
       WHERE NOT EXISTS (
           SELECT 1 FROM batch_content t
            WHERE t.rto_id = ${scope.rto} AND t.transaction_batch_token = ${scope.token}
              AND t.resource_type = ${references} AND t.resource_uid = f.target)
         AND NOT ${heldInSubmission(scope, references, sql`f.target`)}`,
    })),
  )
}
