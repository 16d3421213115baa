import Type, { type Static } from 'typebox'
import { StringEnum } from '../../platform/http/types.ts'
import { PagedEnvelope } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { messageLevels } from '../../domain/rules.ts'

export const ValidationStatus = named(
  'ValidationStatus',
  Type.Object(
    {
      validationStatus: StringEnum(['Queued', 'InProgress', 'Validated'] as const, {
        description: 'Queued, then InProgress, then Validated',
      }),
      hasBlockingValidationFailures: Type.Boolean({
        description: 'an Error result exists; meaningful once Validated (false before)',
      }),
      hasNonBlockingValidationFailures: Type.Boolean({
        description: 'a Warning result exists; meaningful once Validated (false before)',
      }),
      isCurrent: Type.Boolean({
        description:
          "false when the batch's records changed after this run started: its results are stale and submit is refused until a new run completes",
      }),
      numberOfResults: Type.Integer({
        description: 'number of failed-validation-results of the run; 0 before Validated',
      }),
      requestedAt: Type.String({ format: 'date-time' }),
      startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { description: "the batch's latest validation run (spec: Batch validation status)" },
  ),
)
export type ValidationStatus = Static<typeof ValidationStatus>

export const ValidationResult = named(
  'ValidationResult',
  Type.Object(
    {
      validationGroupingId: Type.String({
        description: 'identical for all results of one execution of one rule; read them together',
      }),
      relatedValidationResultCount: Type.Integer({
        description: 'number of results in the group; 1 means no other resource is involved',
      }),
      errorNumber: Type.String({ description: 'rule code, e.g. BRTS02180' }),
      ruleId: Type.String({ description: 'business rule, e.g. BRDG00017' }),
      technicalRuleId: Type.String({ description: 'technical rule implementation, e.g. BRTS01180' }),
      validationMessageLevel: StringEnum(messageLevels, {
        description: 'Error blocks submission; Warning does not',
      }),
      correctiveAction: Type.String({ description: 'minimum change needed to satisfy the rule' }),
      message: Type.String({ description: 'what was found, naming the attribute and the offending value' }),
      resourceType: StringEnum(resourceTypes, { description: 'type of the affected resource' }),
      resourceUID: Type.String({ format: 'uuid', description: 'the affected resource' }),
      accessPath: Type.Array(Type.String(), {
        description: 'JSONPath-style paths of every attribute involved, e.g. $.locations[0].deliveryLocationUID',
      }),
      changeTrackingIdentifier: Type.Union([Type.String(), Type.Null()], {
        description: 'version of the resource that produced the result',
      }),
      dataSource: StringEnum(['Transaction_batch', 'Previously_submitted_data'] as const, {
        description: 'where the affected version is: this batch, or data already held',
      }),
    },
    { description: 'one failed result of a batch validation run (spec: Validation result)' },
  ),
)
export type ValidationResult = Static<typeof ValidationResult>

export const ValidationResultPage = PagedEnvelope(
  ValidationResult,
  "results of the batch's latest completed validation run, grouped results together, in a stable order",
)
