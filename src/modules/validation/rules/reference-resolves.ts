// BRTS02100: every UID reference resolves to a record of the referenced type, in the batch or held for
// the RTO and not voided. The message says where the missing record was looked for.
import { sql } from 'kysely'
import { referenceFields, resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule, type SetFindingRow } from '../rule.ts'
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
  query: (scope) => {
    const selects = resourceTypes.flatMap((source) =>
      referenceFields[source].map(
        ({ field, references }) => sql<SetFindingRow>`
      SELECT r.uid::text || ${`:${field}:`}::text || ref.path AS group_key, ${source}::text AS resource_type, r.uid AS resource_uid,
             ARRAY[ref.path] AS access_path, r.ctid AS change_tracking_identifier, 'Transaction_batch' AS data_source,
             format('%s %s is not in this transaction batch nor in the data previously submitted for this RTO (or it is voided there).',
                    ref.path, ref.target) AS message
        FROM ${batchRecordsOf(scope, source)} AS r CROSS JOIN ${referencesOf('r', field, 'ref')}
       WHERE NOT r.is_voided
         AND NOT EXISTS (
           SELECT 1 FROM batch_content t
            WHERE t.rto_id = ${scope.rto} AND t.transaction_batch_token = ${scope.token}
              AND t.resource_type = ${references} AND t.resource_uid = ref.target)
         AND NOT ${heldInSubmission(scope, references, sql`ref.target`)}`,
      ),
    )
    return sql.join(selects, sql` UNION ALL `) as never
  },
})
