// Failed validation and assessment results as a person reads them: one row per result, grouped by
// the concern they share, blocking first.
import type { AssessmentResult, ResultGroup, ValidationResult } from '@vetrs/client'
import type { Output } from './output.ts'

export function printValidationResults(
  output: Output,
  blocking: ResultGroup<ValidationResult>[],
  nonBlocking: ResultGroup<ValidationResult>[],
): void {
  const rows = [...blocking, ...nonBlocking].flatMap((group, i) =>
    group.results.map((r) => ({
      group: i + 1,
      level: r.validationMessageLevel,
      rule: r.errorNumber,
      resource: r.resourceType,
      uid: r.resourceUID,
      accessPath: r.accessPath,
      correctiveAction: r.correctiveAction,
      source: r.dataSource === 'Transaction_batch' ? 'this batch' : 'submitted data',
    })),
  )
  output.table(rows, ['group', 'level', 'rule', 'resource', 'uid', 'accessPath', 'source', 'correctiveAction'])
  for (const group of [...blocking, ...nonBlocking])
    output.say(`  ${group.results[0]!.errorNumber}: ${group.results[0]!.message}`)
  output.say(summary(blocking.length, nonBlocking.length))
}

export function printAssessmentResults(
  output: Output,
  blocking: ResultGroup<AssessmentResult>[],
  nonBlocking: ResultGroup<AssessmentResult>[],
): void {
  const rows = [...blocking, ...nonBlocking].flatMap((group, i) =>
    group.results.map((r) => ({
      group: i + 1,
      level: r.AssessmentMessageLevel,
      rule: r.technicalRuleId,
      resource: r.resourceType,
      uid: r.resourceUID,
      owner: r.dataOwner ? 'this client' : 'another client',
      correctiveAction: r.correctiveAction,
    })),
  )
  output.table(rows, ['group', 'level', 'rule', 'resource', 'uid', 'owner', 'correctiveAction'])
  for (const group of [...blocking, ...nonBlocking])
    output.say(`  ${group.results[0]!.technicalRuleId}: ${group.results[0]!.message}`)
  output.say(summary(blocking.length, nonBlocking.length))
}

function summary(blocking: number, nonBlocking: number): string {
  if (blocking === 0 && nonBlocking === 0) return 'No failed results.'
  return `${blocking} blocking (Error) and ${nonBlocking} non-blocking (Warning) ${blocking + nonBlocking === 1 ? 'concern' : 'concerns'}.`
}
