import Type, { type Static } from 'typebox'
import { Jurisdiction, StringEnum } from '../../platform/http/types.ts'
import { BatchSummary } from '../batches/index.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { named } from '../../platform/http/schema-names.ts'

export const SubmittedBatch = named(
  'SubmittedBatch',
  Type.Object(
    {
      ...BatchSummary.properties,
      numberOfRecordsSubmitted: Type.Integer({ description: 'records of the batch now held (voids included)' }),
    },
    { description: 'the batch, now Submitted and closed' },
  ),
)
export type SubmittedBatch = Static<typeof SubmittedBatch>

export const stateInSubmissionValues = ['In submission', 'Voided in submission', 'Not found in submission'] as const

export const HeldState = named(
  'HeldState',
  Type.Object(
    {
      resourceType: StringEnum(resourceTypes),
      resourceUID: Type.String({ format: 'uuid' }),
      stateInSubmission: StringEnum(stateInSubmissionValues, {
        description:
          'In submission when held; Voided in submission after a processed void; Not found in submission when never submitted',
      }),
      changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()], {
        description: 'of the latest submitted version',
      }),
      submissionDateTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'when the latest version was submitted (UTC)',
      }),
      studentActivityDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
        description:
          'the date reconciliation searches the record by (docs/decisions.md, Activity dates); null when voided or not found, and, for records other than enrolments, until the batch that submitted the latest version is reconciled (reconciledAt)',
      }),
      jurisdiction: Type.Union([Jurisdiction, Type.Null()], {
        description: 'jurisdiction of the batch that submitted the latest version',
      }),
      voidedReason: Type.Union([Type.String(), Type.Null()]),
      numberOfVersions: Type.Integer({
        description: 'versions submitted so far, voids included (history is kept for audit)',
      }),
    },
    { description: 'whether a record is held, and which version (spec: Record presence in submission)' },
  ),
)
export type HeldState = Static<typeof HeldState>
