// Reconciliation (spec: Reconciliation item; Endpoints, Reconciliation). Resource types are spelled as
// everywhere else in the API: PascalCase in queries, bodies and results (ProgramEnrolment), the
// lower-case batch segment in paths (programenrolment). Names: docs/decisions.md.
import Type, { type Static } from 'typebox'
import { DateString, Strict, StringEnum, Uuid4 } from '../../platform/http/types.ts'
import { PagedEnvelope, PageQuery } from '../../platform/http/paging.ts'
import { resourceTypes, type ResourceSegment, type ResourceType } from '../../domain/resource-types.ts'
import { named } from '../../platform/http/schema-names.ts'
import { REPORTING_PERIOD_PATTERN } from '../../domain/calendar.ts'

/** The types search-by-period and uid-match query (spec: all but DeliveryLocation). */
export const searchableTypes = [
  'SubjectEnrolment',
  'ProgramEnrolment',
  'SubjectOffering',
  'ProgramOffering',
  'Subject',
  'Program',
  'Student',
] as const satisfies readonly ResourceType[]
/** The starting types of related-resources, as path segments. */
export const relatedStartSegments = [
  'student',
  'programenrolment',
  'subjectenrolment',
] as const satisfies readonly ResourceSegment[]

export const ReportingPeriod = Type.String({
  pattern: REPORTING_PERIOD_PATTERN,
  description:
    'reporting period {CalendarYear}{Quarter}, year 1900 to 9999 as dates are: 202601 is January to March 2026, 202604 October to December',
})

export const ReconciliationItem = named(
  'ReconciliationItem',
  Type.Object(
    {
      resourceUID: Type.String({ format: 'uuid' }),
      resourceType: StringEnum(resourceTypes),
      submissionDateTime: Type.String({
        format: 'date-time',
        description: 'most recent successful submission of the resource (UTC)',
      }),
      changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()], {
        description: 'latest accepted client version',
      }),
      studentActivityDate: DateString({
        description:
          'the activity date the resource is searched and sorted by (docs/decisions.md): the latest activity date of the enrolments that reach it, or, when no current enrolment does, the UTC date of its latest submission',
      }),
    },
    { description: 'the latest version of a held, not voided, resource; never its content' },
  ),
)
export type ReconciliationItem = Static<typeof ReconciliationItem>

export const SearchByPeriodQuery = Type.Object(
  {
    resourceType: StringEnum(searchableTypes, { description: 'the one resource type to return' }),
    reportingPeriods: Type.Optional(
      Type.Array(ReportingPeriod, {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          '1 to 10 distinct reporting period codes, as a repeated parameter (reportingPeriods=202601&reportingPeriods=202602), comma-separated (reportingPeriods=202601,202602), or both; or give activityDateFrom and activityDateTo instead',
      }),
    ),
    activityDateFrom: Type.Optional(
      DateString({ description: 'first studentActivityDate of the range, YYYY-MM-DD (with activityDateTo)' }),
    ),
    activityDateTo: Type.Optional(
      DateString({ description: 'last studentActivityDate of the range, YYYY-MM-DD (with activityDateFrom)' }),
    ),
    ...PageQuery.properties,
  },
  { additionalProperties: false },
)
export type SearchByPeriodQuery = Static<typeof SearchByPeriodQuery>

export const ReconciliationPage = PagedEnvelope(
  ReconciliationItem,
  'reconciliation items, newest studentActivityDate first, then by resourceUID',
)

export const MAX_UID_MATCH = 500

export const UidMatchRequest = named(
  'UidMatchRequest',
  Strict(
    {
      resourceType: StringEnum(searchableTypes, { description: 'type of every UID in the list' }),
      reportingPeriod: ReportingPeriod,
      resourceUIDs: Type.Array(Uuid4(), {
        minItems: 1,
        maxItems: MAX_UID_MATCH,
        description: `1 to ${MAX_UID_MATCH} distinct UIDs`,
      }),
    },
    { description: 'the UIDs to look up, their type and the reporting period' },
  ),
)
export type UidMatchRequest = Static<typeof UidMatchRequest>

export const UidMatchItem = named(
  'UidMatchItem',
  Type.Object({
    resourceUID: Type.String({ format: 'uuid', description: 'as requested' }),
    resourceType: StringEnum(searchableTypes),
    resourceInSubmission: Type.Boolean({
      description:
        'true when the resource is held, not voided, and its studentActivityDate falls in the reporting period',
    }),
    submissionDateTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: "null when not held (never submitted, voided, or another RTO's)",
    }),
    changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()]),
    studentActivityDate: Type.Union([DateString(), Type.Null()], {
      description: 'the date the resource is searched by, whatever the period asked; null when not held',
    }),
  }),
)

export const UidMatchResponse = named(
  'UidMatchResponse',
  Type.Object({
    resourceType: StringEnum(searchableTypes),
    reportingPeriod: Type.String(),
    numberOfResults: Type.Integer(),
    results: Type.Array(UidMatchItem, { description: 'one per requested UID, in request order' }),
  }),
)
export type UidMatchResponse = Static<typeof UidMatchResponse>

export const RelatedParams = Strict({
  resourceType: StringEnum(relatedStartSegments, {
    description: 'starting type, as in batch paths: student, programenrolment or subjectenrolment',
  }),
  uid: Uuid4({ description: 'UID of the starting resource' }),
})
