// The catalogue as it is published: served at GET /vet-provider/v1/business-rules and written to
// docs/business-rules.md (npm run docs:rules), both from the rules' own metadata: the batch
// validation rules, then the data quality assessment rules. Built here, where both kinds of rule meet,
// so that neither validation nor assessment needs the other.
import type { MessageLevel } from '../../domain/rules.ts'
import { rules } from '../validation/index.ts'
import { assessmentRules } from '../assessment/index.ts'

export interface CatalogueEntry {
  technicalRuleId: string
  ruleId: string
  errorNumber: string
  validationMessageLevel: MessageLevel
  title: string
  description: string
  correctiveAction: string
  resourceTypes: string[]
  /**
   * record: checked one record at a time; set: checked across the batch and the held dataset (both by
   * batch validation); assessment: checked period-wide over the held data by a data quality assessment
   */
  scope: 'record' | 'set' | 'assessment'
}

export function catalogue(): CatalogueEntry[] {
  return [...batchRuleEntries(), ...assessmentRuleEntries()]
}

function assessmentRuleEntries(): CatalogueEntry[] {
  return assessmentRules.map((rule) => ({
    technicalRuleId: rule.technicalRuleId,
    ruleId: rule.ruleId,
    errorNumber: rule.technicalRuleId,
    validationMessageLevel: rule.level,
    title: rule.title,
    description: rule.description,
    correctiveAction: rule.correctiveAction,
    resourceTypes: [...rule.resourceTypes],
    scope: 'assessment',
  }))
}

function batchRuleEntries(): CatalogueEntry[] {
  return rules.map((rule) => ({
    technicalRuleId: rule.technicalRuleId,
    ruleId: rule.ruleId,
    errorNumber: rule.technicalRuleId,
    validationMessageLevel: rule.level,
    title: rule.title,
    description: rule.description,
    correctiveAction: rule.correctiveAction,
    resourceTypes: [...rule.resourceTypes],
    scope: rule.kind,
  }))
}

export function catalogueMarkdown(): string {
  const lines = [
    '# Business rules',
    '',
    'Generated from the rule modules in `src/modules/validation/rules/` by `npm run docs:rules`; do not edit by hand.',
    'The same catalogue is served at `GET /vet-provider/v1/business-rules`.',
    'Batch validation runs the record and set rules: record rules check one record at a time; set rules check records against each other and against the data previously submitted for the RTO. There an Error blocks submission; a Warning does not.',
    "Data quality assessments run the assessment rules (`src/modules/assessment/rules/`) period-wide over the RTO's held data for one jurisdiction and reporting period. There an Error blocks declaring; a Warning does not.",
    '',
    '| errorNumber (technicalRuleId) | ruleId | Level | Scope | Resource types | Rule |',
    '|---|---|---|---|---|---|',
    ...catalogue().map(
      (entry) =>
        `| ${entry.technicalRuleId} | ${entry.ruleId} | ${entry.validationMessageLevel} | ${entry.scope} | ${entry.resourceTypes.join(', ')} | ${entry.title} |`,
    ),
    '',
  ]
  for (const entry of catalogue()) {
    lines.push(
      `## ${entry.technicalRuleId}: ${entry.title}`,
      '',
      entry.description,
      '',
      `- ruleId: ${entry.ruleId}`,
      `- level: ${entry.validationMessageLevel}`,
      `- resource types: ${entry.resourceTypes.join(', ')}`,
      `- corrective action: ${entry.correctiveAction}`,
      '',
    )
  }
  return lines.join('\n')
}
