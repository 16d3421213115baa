// BRTS02180, given by the specification (Standard workflows, void): a delivery location cannot be
// voided while a subject enrolment location references it. One void of a location is one problem, so
// this rule reports every record that still uses the location, the offerings that name it as well as
// the subject enrolment locations, in one group: the location (Transaction_batch) and each record
// still referencing it (Previously_submitted_data when held, Transaction_batch when it is in the batch
// too). BRTS02190 leaves delivery locations to this rule, so a location's void is never reported
// twice (docs/decisions.md, Validation, One void, one group).
import { referenceFields, resourceTypes } from '../../../domain/resource-types.ts'
import { defineSetRule } from '../rule.ts'
import { orphanFromPieces, orphanQuery, orphanSlicedParts, type Reference } from './orphans.ts'

/** Every reference to a delivery location: subject enrolment locations, and the offerings' deliveryLocationUID. */
export const LOCATION_REFERENCES: readonly Reference[] = resourceTypes.flatMap((source) =>
  referenceFields[source]
    .filter(({ references }) => references === 'DeliveryLocation')
    .map(({ field, references }) => ({ source, field, target: references })),
)

export default defineSetRule({
  technicalRuleId: 'BRTS02180',
  ruleId: 'BRDG00051',
  level: 'Error',
  resourceTypes: ['DeliveryLocation', 'SubjectEnrolment', 'SubjectOffering', 'ProgramOffering'],
  title: 'A delivery location in use cannot be voided',
  description:
    'A delivery location voided in the batch must not be referenced by any subject enrolment location, nor by the deliveryLocationUID of a subject or program offering, in the batch or held. The location and every record still referencing it are one group.',
  correctiveAction:
    'Void the referencing subject enrolments too (remove_orphaned_record), or point their locations at another delivery location in the same batch; re-upload the offerings with another deliveryLocationUID, or without one.',
  query: (scope) => orphanQuery(scope, LOCATION_REFERENCES),
  // In key slices of the batch (issue 30): orphans.ts, orphanSlicedParts.
  slicedParts: (scope) => orphanSlicedParts(scope, LOCATION_REFERENCES),
  fromPieces: (_scope, pieces) => orphanFromPieces(LOCATION_REFERENCES, pieces),
})
