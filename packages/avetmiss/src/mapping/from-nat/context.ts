// What every part of the NAT-to-resources mapping shares: the RTO, the code translator, the natural
// keys, and the problems found on the way, each at its NAT file, line and field.
import type { NatFileId } from '../../layouts/index.ts'
import type { NatProblem } from '../../problems.ts'
import type { NatRecord } from '../../records.ts'
import type { CodeTranslator } from '../code-translator.ts'
import type { NaturalKeys } from '../natural-keys.ts'
import { natFieldLabel } from '../origin.ts'

export interface ImportContext {
  readonly rtoCode: string
  readonly codes: CodeTranslator
  readonly keys: NaturalKeys
  /** The studentStatusReason of a Cancelled state derived from outcome 40 (withdrawn/discontinued). */
  readonly withdrawalReason: string
  readonly problems: NatProblem[]
}

/** Reports a problem at a record's line (and field, when given), naming the field by its published label. */
export function report(context: ImportContext, source: NatRecord, field: string | undefined, message: string): void {
  const values = source.values as Record<string, string | undefined>
  const problem: NatProblem = { file: source.file, line: source.line, message }
  if (field !== undefined) {
    problem.field = field
    const value = values[field]
    if (value !== undefined) problem.value = value
  }
  context.problems.push(problem)
}

/** The published name of a field, for messages: `Activity start date`. */
export function labelOf(fileId: NatFileId, field: string): string {
  return natFieldLabel(fileId, field) ?? field
}

/**
 * Reports a record whose `trainingOrganisationIdentifier` is not the RTO being imported for. The record
 * is still mapped, for that RTO: a set names one organisation, and a stray code is most often an old one.
 */
export function checkOrganisation(
  context: ImportContext,
  source: NatRecord<'NAT00020' | 'NAT00120' | 'NAT00130' | 'NAT00010'>,
): void {
  const given = source.values.trainingOrganisationIdentifier
  if (given !== undefined && given !== context.rtoCode) {
    report(
      context,
      source,
      'trainingOrganisationIdentifier',
      `Training organisation identifier ${given} is not the RTO being imported for (${context.rtoCode}); the record is imported for ${context.rtoCode}`,
    )
  }
}
