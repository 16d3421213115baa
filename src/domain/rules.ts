// What every business rule says about itself, batch validation rule or data quality assessment rule:
// the metadata the published catalogue is built from (GET /business-rules, docs/business-rules.md).
import type { ResourceType } from './resource-types.ts'

/** An Error blocks (submitting a batch, or declaring a period); a Warning does not. */
export const messageLevels = ['Error', 'Warning'] as const
export type MessageLevel = (typeof messageLevels)[number]

export interface RuleMetadata {
  /** Identifier of the implementation; also a batch result's errorNumber. Never reused. */
  technicalRuleId: string
  /** Identifier of the business rule the implementation checks. Never reused. */
  ruleId: string
  /** Error blocks (submission for batch rules, declaring for assessment rules); Warning does not. */
  level: MessageLevel
  /** The resource types whose records the rule can report. */
  resourceTypes: readonly ResourceType[]
  title: string
  /** What the rule checks, in plain language. */
  description: string
  /** The minimum change that satisfies the rule. */
  correctiveAction: string
}
