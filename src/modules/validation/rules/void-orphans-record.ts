// BRTS02190: the orphan rule for every other reference (spec: Errors, "voids that would leave orphaned
// records fail validation"). A void that would orphan a held or batched record is blocking unless that
// record is voided too, with remove_orphaned_record. References to a delivery location are BRTS02180's,
// all of them, so one voided location is one group of one rule.
import { referenceFields, resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule } from '../rule.ts'
import { orphanFromPieces, orphanQuery, orphanSlicedParts, type Reference } from './orphans.ts'

const REFERENCES: Reference[] = resourceTypes.flatMap((source) =>
  referenceFields[source]
    .filter(({ references }) => references !== 'DeliveryLocation')
    .map(({ field, references }) => ({ source, field, target: references })),
)

export default defineSetRule({
  technicalRuleId: 'BRTS02190',
  ruleId: 'BRDG00052',
  level: 'Error',
  resourceTypes: [
    'Student',
    'Program',
    'ProgramOffering',
    'Subject',
    'SubjectOffering',
    'ProgramEnrolment',
    'SubjectEnrolment',
  ],
  title: 'A void does not orphan another record',
  description:
    'A record voided in the batch must not be referenced by a record that stays: in the batch and not voided, or held and not replaced by the batch. References to a delivery location are reported by BRTS02180.',
  correctiveAction:
    'Void the referencing records in the same batch with voidedReason remove_orphaned_record, or re-upload them pointing at a record that stays.',
  query: (scope) => orphanQuery(scope, REFERENCES),
  // In key slices of the batch (issue 30): orphans.ts, orphanSlicedParts.
  slicedParts: (scope) => orphanSlicedParts(scope, REFERENCES),
  fromPieces: (_scope, pieces) => orphanFromPieces(REFERENCES, pieces),
})
