import Type, { type Static } from 'typebox'
import { DateString, Jurisdiction, StringEnum, Strict } from '../../platform/http/types.ts'
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
      studentActivityDate: Type.Union([DateString(), Type.Null()], {
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

/** Most UIDs one request for held records may name. */
export const MAX_HELD_RECORDS_UIDS = 100

/** Most records one page of held records carries. */
export const MAX_HELD_RECORDS_PAGE = 500

/** submit's query: the spec's submit has no body, so an acknowledgement is a query parameter. */
export const SubmitQuery = Strict({
  acknowledgeDropped: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      description:
        "the number of NAT problems (lines not read or mapped, records refused) that the NAT import which made the batch left out, as its answer's natProblemCount and the 409 nat-lines-dropped's droppedCount state it: submit without them. Must equal that number (an acknowledgement names what it accepts); ignored for a batch whose import left nothing out or that no NAT import made",
    }),
  ),
})
export type SubmitQuery = Static<typeof SubmitQuery>

export const HeldRecordsQuery = Strict({
  resourceType: StringEnum(resourceTypes, { description: 'the one resource type to return (Student, not student)' }),
  after: Type.Optional(
    Type.String({
      format: 'uuid',
      description: "the cursor: only records whose UID sorts after this one; give the previous page's nextAfter",
    }),
  ),
  pageSize: Type.Integer({
    minimum: 1,
    maximum: MAX_HELD_RECORDS_PAGE,
    default: 100,
    description: `records per page, at most ${MAX_HELD_RECORDS_PAGE}`,
  }),
  resourceUID: Type.Optional(
    Type.Array(Type.String({ format: 'uuid' }), {
      minItems: 1,
      maxItems: MAX_HELD_RECORDS_UIDS,
      description: `only these records (those of them held), at most ${MAX_HELD_RECORDS_UIDS}: a repeated parameter (resourceUID=...&resourceUID=...), comma-separated, or both. What an import reads to carry a record's held history forward`,
    }),
  ),
})
export type HeldRecordsQuery = Static<typeof HeldRecordsQuery>

export const HeldRecord = named(
  'HeldRecord',
  Type.Object(
    {
      resourceUID: Type.String({ format: 'uuid' }),
      changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()], {
        description: 'of the latest submitted version',
      }),
      submissionDateTime: Type.String({ format: 'date-time', description: 'when that version was submitted (UTC)' }),
      jurisdiction: Jurisdiction,
      record: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description:
          "the latest submitted version as it was uploaded (after the upload's normalisation: nulls dropped, enum values trimmed), in the resource type's schema",
      }),
    },
    { description: 'the latest submitted version of a held, not voided, record, with its content' },
  ),
)
export type HeldRecord = Static<typeof HeldRecord>

export const HeldRecordsPage = named(
  'HeldRecordsPage',
  Type.Object(
    {
      resourceType: StringEnum(resourceTypes),
      pageSize: Type.Integer({ description: 'maximum results per page' }),
      numberOfResults: Type.Optional(
        Type.Integer({
          description:
            'held, not voided, records of the type: on the first page only (no after), since counting costs a read of them all',
        }),
      ),
      latestSubmissionAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description:
          "when the caller's RTO last submitted, as this page was read (null: never). Pages read with the same value show one state of the held dataset; a different value means a submission landed in between",
      }),
      nextAfter: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'the after of the next page; null on the last page',
      }),
      results: Type.Array(HeldRecord),
    },
    {
      description:
        'a page of held records of one type, in UID order (an extension of the API: the reconciliation endpoints never return content)',
    },
  ),
)
export type HeldRecordsPage = Static<typeof HeldRecordsPage>
