// BRTS02180, given by the specification (Standard workflows, void): a delivery location cannot be
// voided while a subject enrolment location references it. The results share one grouping id: the
// location (Transaction_batch) and each referencing enrolment (Previously_submitted_data when held,
// Transaction_batch when it is in the batch too).
import { defineSetRule } from '../rule.ts'
import { orphanQuery } from './orphans.ts'

export const SUBJECT_ENROLMENT_LOCATIONS = { source: 'SubjectEnrolment', field: 'locations[].deliveryLocationUID', target: 'DeliveryLocation' } as const

export default defineSetRule({
  technicalRuleId: 'BRTS02180',
  ruleId: 'BRDG00051',
  level: 'Error',
  resourceTypes: ['DeliveryLocation', 'SubjectEnrolment'],
  title: 'A delivery location in use by a subject enrolment cannot be voided',
  description: 'A delivery location voided in the batch must not be referenced by any subject enrolment location, in the batch or held.',
  correctiveAction: 'Void the referencing subject enrolments too (remove_orphaned_record), or point their locations at another delivery location in the same batch.',
  query: (scope) => orphanQuery(scope, [SUBJECT_ENROLMENT_LOCATIONS]),
})
