import Type, { type Static } from 'typebox'
import { Jurisdiction, Nullable, StringEnum, Strict } from '../../platform/http/types.ts'
import { PagedEnvelope } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'

export const BatchStatus = StringEnum(['NotSubmitted', 'Submitted'] as const, {
  description: 'NotSubmitted until the batch is submitted',
})

export const TransactionBatchToken = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'opaque token returned when the batch was created',
})

export const JurisdictionParams = Strict({ jurisdiction: Jurisdiction })
export const BatchParams = Strict({ jurisdiction: Jurisdiction, transactionBatchToken: TransactionBatchToken })

const timestamps = {
  createdAt: Type.String({ format: 'date-time', description: 'when the batch was created (UTC)' }),
  updatedAt: Type.String({ format: 'date-time', description: 'when its content last changed (UTC)' }),
  submittedAt: Nullable(Type.String({ format: 'date-time' }), {
    description: 'when it was submitted; null until then',
  }),
}

export const BatchSummary = named(
  'BatchSummary',
  Type.Object(
    {
      transactionBatchToken: TransactionBatchToken,
      status: BatchStatus,
      jurisdiction: Jurisdiction,
      ...timestamps,
    },
    { description: 'a transaction batch' },
  ),
)
export type BatchSummary = Static<typeof BatchSummary>

export const RecordCounts = Type.Record(Type.String(), Type.Integer(), {
  description: 'number of records in the batch per resource type (every type listed, zero included)',
})

export const BatchDetail = named(
  'BatchDetail',
  Type.Object(
    {
      ...BatchSummary.properties,
      reconciledAt: Nullable(Type.String({ format: 'date-time' }), {
        description:
          'when reconciliation (search-by-period, uid-match, related-resources) began to reflect this submission; null before, and for a batch not submitted',
      }),
      recordCounts: RecordCounts,
      totalRecords: Type.Integer(),
    },
    { description: 'a transaction batch with its record counts' },
  ),
)
export type BatchDetail = Static<typeof BatchDetail>

export const BatchPage = PagedEnvelope(BatchSummary, "the caller's transaction batches, newest first")
