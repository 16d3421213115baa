import Type, { type Static } from 'typebox'
import { Jurisdiction, StringEnum } from '../../platform/http/types.ts'
import { PagedEnvelope } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'
import { messageLevels } from '../../domain/rules.ts'

export const assessmentStatuses = ['Required', 'Queued', 'In Progress', 'Validated', 'Fault'] as const
export type AssessmentStatusValue = (typeof assessmentStatuses)[number]

export const PeriodParams = Type.Object({
  jurisdiction: Jurisdiction,
  ReportingPeriodNumber: Type.String({
    description: 'reporting period {CalendarYear}{Quarter}, from 202601 up to the current quarter',
    examples: ['202604'],
  }),
})
export type PeriodParams = Static<typeof PeriodParams>

export const AssessmentStatus = named(
  'AssessmentStatus',
  Type.Object(
    {
      reportingPeriodNumber: Type.Integer(),
      jurisdiction: Jurisdiction,
      assessmentStatus: StringEnum(assessmentStatuses, {
        description: 'Required, Queued, In Progress, Validated or Fault (spec: Data quality assessment status)',
      }),
      hasBlockingFailures: Type.Boolean({
        description:
          'the latest completed assessment has an Error outcome (blocks declaring); false when none has completed',
      }),
      hasNonBlockingFailures: Type.Boolean({
        description: 'the latest completed assessment has a Warning outcome; false when none has completed',
      }),
      resultsAreCurrent: Type.Boolean({
        description:
          'true only when assessmentStatus is Validated: the readable results describe the data as it is held now',
      }),
      numberOfResults: Type.Integer({
        description: 'failed outcomes of the latest completed assessment (0 when none has completed)',
      }),
      messages: Type.Array(Type.String(), {
        description: 'informational messages: what the status means and what to do next',
      }),
      requestedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'when the latest assessment was requested',
      }),
      startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'when the latest completed assessment (the one whose results are readable) completed',
      }),
    },
    { description: "the data quality assessment of one jurisdiction and reporting period for the caller's RTO" },
  ),
)
export type AssessmentStatus = Static<typeof AssessmentStatus>

// Field names as the spec's table writes them (AssessmentGroupingId, AssessmentMessageLevel).
export const AssessmentResult = named(
  'AssessmentResult',
  Type.Object(
    {
      AssessmentGroupingId: Type.String({
        description: 'identifies one data quality concern; every resource involved in it has a result with the same id',
      }),
      technicalRuleId: Type.String({
        description: 'data quality rule, e.g. DQTS10010 (GET /vet-provider/v1/business-rules lists them)',
      }),
      ruleId: Type.String({ description: 'business rule the technical rule implements, e.g. DQBR00101' }),
      AssessmentMessageLevel: StringEnum(messageLevels, {
        description: 'Error blocks declaring; Warning does not',
      }),
      correctiveAction: Type.String(),
      message: Type.String({ description: 'what was found, naming the offending values' }),
      resourceType: Type.String({ description: 'e.g. Student, ProgramEnrolment, Subject' }),
      resourceUID: Type.String({ format: 'uuid' }),
      changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()], {
        description: 'version of the resource when assessed',
      }),
      dataOwner: Type.Boolean({
        description: 'true if the requesting client submitted that version; false does not mean invalid',
      }),
    },
    { description: 'one failed outcome of a data quality assessment (spec: Data quality assessment result)' },
  ),
)
export type AssessmentResult = Static<typeof AssessmentResult>

export const AssessmentResultPage = PagedEnvelope(
  AssessmentResult,
  'failed outcomes of the latest completed assessment, results of one concern together, in a stable order',
)
