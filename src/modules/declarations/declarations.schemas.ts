import Type, { type Static } from 'typebox'
import { DateString, Jurisdiction, Nullable, Optional, StringEnum, Strict } from '../../platform/http/types.ts'
import { PagedEnvelope } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'

export const declarationTypes = ['Declaration', 'Nil_activity_report'] as const

const ReportingPeriodNumber = Type.Union(
  [Type.Integer({ minimum: 100001, maximum: 999904 }), Type.String({ pattern: '^\\d{6}$' })],
  {
    description:
      'the one reporting period declared, {CalendarYear}{Quarter} (202604), from 202601 up to the current quarter; a number or a string of digits',
  },
)

// Field names and rules as the spec's Declaration table writes them.
const declarationFields = {
  declarationType: StringEnum(declarationTypes, {
    description: 'Declaration (all required activity reported) or Nil_activity_report (none to report)',
  }),
  dateOfLastReportableActivity: Optional(
    Nullable(
      DateString({
        description:
          'YYYY-MM-DD; required for a Nil_activity_report and earlier than the first day of the period; not given for a Declaration',
      }),
    ),
  ),
  RTOAcceptanceOfDeclaration: Type.Literal(true, { description: 'must be true: the RTO accepts the declaration' }),
  RTOUserName: Type.String({
    minLength: 1,
    maxLength: 80,
    description: 'the authorised person making the declaration, at most 80 characters',
  }),
  RTOUserEmailAddress: Type.String({
    minLength: 3,
    maxLength: 320,
    pattern: '@',
    description: 'their email address, at most 320 characters, with an @',
  }),
}

export const DeclarationRequest = named(
  'DeclarationRequest',
  Strict(
    {
      reportingPeriodNumber: ReportingPeriodNumber,
      jurisdiction: Jurisdiction,
      ...declarationFields,
    },
    {
      description: 'a declaration or nil activity report for one reporting period and jurisdiction (spec: Declaration)',
    },
  ),
)
export type DeclarationRequest = Static<typeof DeclarationRequest>

/** The body on the period path: period and jurisdiction come from the path (and, if given, must agree with it). */
export const PeriodDeclarationRequest = named(
  'PeriodDeclarationRequest',
  Strict(
    {
      reportingPeriodNumber: Optional(ReportingPeriodNumber),
      jurisdiction: Optional(Jurisdiction),
      ...declarationFields,
    },
    { description: 'a declaration or nil activity report for the period and jurisdiction in the path' },
  ),
)
export type PeriodDeclarationRequest = Static<typeof PeriodDeclarationRequest>

export const DeclarationRecord = named(
  'DeclarationRecord',
  Type.Object(
    {
      declarationId: Type.String({ format: 'uuid' }),
      reportingPeriodNumber: Type.Integer(),
      jurisdiction: Jurisdiction,
      declarationType: StringEnum(declarationTypes),
      dateOfLastReportableActivity: Nullable(DateString()),
      RTOAcceptanceOfDeclaration: Type.Boolean(),
      RTOUserName: Type.String(),
      RTOUserEmailAddress: Type.String(),
      declaredAt: Type.String({ format: 'date-time' }),
      declaredByClient: Type.String({ description: 'the client that made the declaration' }),
      declarationDueDate: DateString({
        description:
          "last day on time for this type of declaration: the spec's rule, or the date the collector set for the period and jurisdiction, or the RTO's extension",
      }),
      isLate: Type.Boolean({
        description: 'made after declarationDueDate (by the rule, more than one month after the period ended)',
      }),
      isCurrent: Type.Boolean({ description: 'false once a later declaration for the period superseded it' }),
    },
    { description: 'a declaration as recorded' },
  ),
)
export type DeclarationRecord = Static<typeof DeclarationRecord>

export const DeclarationSaved = named(
  'DeclarationSaved',
  Type.Object({
    message: Type.String({
      description:
        'saved for the period and jurisdiction; when late, that the RTO may be contacted for a reason for late reporting',
    }),
    declaration: DeclarationRecord,
  }),
)
export type DeclarationSaved = Static<typeof DeclarationSaved>

export const DeclarationQuery = Type.Object(
  {
    reportingPeriodNumber: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^\\d{6}$',
          description: 'reporting period {CalendarYear}{Quarter}, from 202601 up to the current quarter',
        }),
        {
          minItems: 1,
          maxItems: 10,
          uniqueItems: true,
          description:
            '1 to 10 distinct reporting periods, as a repeated parameter (reportingPeriodNumber=202603&reportingPeriodNumber=202604), comma-separated (reportingPeriodNumber=202603,202604), or both; or give startDate and endDate instead',
        },
      ),
    ),
    startDate: Type.Optional(
      DateString({
        description:
          'with endDate: the periods overlapping startDate to endDate; on or after 2026-01-01 and not later than today',
      }),
    ),
    endDate: Type.Optional(DateString({ description: 'with startDate; same bounds' })),
    jurisdiction: Type.Optional(Jurisdiction),
    declarationTypes: Type.Optional(
      Type.Array(StringEnum(declarationTypes), {
        minItems: 1,
        maxItems: 10,
        description:
          'Declaration, Nil_activity_report or both, as a repeated parameter (declarationTypes=Declaration&declarationTypes=Nil_activity_report), comma-separated, or both; declared periods of other types are left out',
      }),
    ),
    includeSuperseded: Type.Boolean({
      default: false,
      description: 'also list declarations a later one superseded (isCurrent false)',
    }),
    pageNumber: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    sortOrder: StringEnum(['Asc', 'Desc'] as const, {
      default: 'Desc',
      description: 'by reporting period, then jurisdiction; Desc (newest period first) by default',
    }),
  },
  { additionalProperties: false },
)
export type DeclarationQuery = Static<typeof DeclarationQuery>

export const DeclarationRow = named(
  'DeclarationRow',
  Type.Object(
    {
      reportingPeriodNumber: Type.Integer(),
      jurisdiction: Jurisdiction,
      declarationDueDate: DateString({
        description:
          "last day on time: of the declaration's type, or for a period without one, of a Declaration (of a Nil_activity_report when only that type is asked for); the spec's rule unless the collector set a date for the period and jurisdiction or gave the RTO an extension",
      }),
      declaration: Type.Union([DeclarationRecord, Type.Null()], {
        description: 'the declaration, or null when the period has none',
      }),
    },
    { description: 'a reporting period and jurisdiction: its declaration, or null, with the due date' },
  ),
)

export const DeclarationPage = PagedEnvelope(
  DeclarationRow,
  'one row per reporting period and jurisdiction: its current declaration, or null with the due date',
)
