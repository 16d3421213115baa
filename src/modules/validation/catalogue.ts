// The catalogue as it is published: served at GET /vet-provider/v1/business-rules and written to
// docs/business-rules.md (npm run docs:rules), both from the rules' own metadata.
import type { Rule } from './rule.ts'
import { rules } from './rules/index.ts'

export interface CatalogueEntry {
  technicalRuleId: string
  ruleId: string
  errorNumber: string
  validationMessageLevel: Rule['level']
  title: string
  description: string
  correctiveAction: string
  resourceTypes: string[]
  /** record: checked one record at a time; set: checked across the batch and the held dataset */
  scope: 'record' | 'set'
}

export function catalogue(): CatalogueEntry[] {
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
    'The same catalogue is served at `GET /vet-provider/v1/business-rules`. An Error blocks submission; a Warning does not.',
    'Record rules check one record at a time; set rules check records against each other and against the data previously submitted for the RTO.',
    '',
    '| errorNumber (technicalRuleId) | ruleId | Level | Scope | Resource types | Rule |',
    '|---|---|---|---|---|---|',
    ...catalogue().map((entry) => `| ${entry.technicalRuleId} | ${entry.ruleId} | ${entry.validationMessageLevel} | ${entry.scope} | ${entry.resourceTypes.join(', ')} | ${entry.title} |`),
    '',
  ]
  for (const entry of catalogue()) {
    lines.push(`## ${entry.technicalRuleId}: ${entry.title}`, '', entry.description, '', `- ruleId: ${entry.ruleId}`, `- level: ${entry.validationMessageLevel}`,
      `- resource types: ${entry.resourceTypes.join(', ')}`, `- corrective action: ${entry.correctiveAction}`, '')
  }
  return lines.join('\n')
}
