// The published business-rule catalogue (GET /business-rules): one entry per batch validation rule
// and per data quality assessment rule.
import Type from 'typebox'
import { StringEnum } from '../../platform/http/types.ts'
import { named } from '../../platform/http/schema-names.ts'
import { messageLevels } from '../../domain/rules.ts'

export const BusinessRule = named(
  'BusinessRule',
  Type.Object({
    technicalRuleId: Type.String(),
    ruleId: Type.String(),
    errorNumber: Type.String(),
    validationMessageLevel: StringEnum(messageLevels),
    title: Type.String(),
    description: Type.String(),
    correctiveAction: Type.String(),
    resourceTypes: Type.Array(Type.String()),
    scope: StringEnum(['record', 'set', 'assessment'] as const, {
      description:
        'record: one record at a time; set: records against each other and the held dataset (batch validation; an Error blocks submit); assessment: period-wide over the held data (data quality assessment; an Error blocks declaring)',
    }),
  }),
)

export const BusinessRuleCatalogue = named(
  'BusinessRuleCatalogue',
  Type.Object(
    {
      numberOfRules: Type.Integer(),
      rules: Type.Array(BusinessRule),
    },
    {
      description:
        'every batch validation rule, in the order validation runs them, then every data quality assessment rule',
    },
  ),
)
