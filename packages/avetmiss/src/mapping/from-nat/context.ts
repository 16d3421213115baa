// What every part of the NAT-to-resources mapping shares: the RTO, the code translator, the natural
// keys, and the problems found on the way, each at its NAT file, line and field.
import { natRecordIdentity } from '../../identity.ts'
import type { NatFileId } from '../../layouts/index.ts'
import type { NatProblem } from '../../problems.ts'
import type { NatUnreadable } from '../../read-file-set.ts'
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
  /** What the reader could not read, so that what refers to it blames the unreadable line. */
  readonly unreadable?: NatUnreadable
}

/**
 * Reports a problem at a record's line (and field, when given), naming the field by its published
 * label and the record by its identifiers, with what to change in the SMS (`correctiveAction`; by
 * default, to correct the field of that record).
 */
export function report(
  context: ImportContext,
  source: NatRecord,
  field: string | undefined,
  message: string,
  correctiveAction?: string,
): void {
  const values = source.values as Record<string, string | undefined>
  const problem: NatProblem = { file: source.file, line: source.line, message }
  if (field !== undefined) {
    problem.field = field
    const value = values[field]
    if (value !== undefined) problem.value = value
  }
  const identity = natRecordIdentity(source.fileId, values)
  if (identity) problem.record = identity
  problem.correctiveAction =
    correctiveAction ??
    `In the SMS, correct ${field === undefined ? 'this record' : labelOf(source.fileId, field)}${identity ? ` of ${identity}` : ''}, and export the NAT files again.`
  context.problems.push(problem)
}

/**
 * The line of `fileId` that names `value` in `field` and could not be read, when there is one: what
 * refers to it is missing because of that line, not because the file leaves it out.
 */
export function unreadLineOf(
  context: ImportContext,
  fileIds: readonly NatFileId[],
  field: string,
  value: string,
): NatRecord | undefined {
  const unreadable = context.unreadable
  if (!unreadable) return undefined
  let byKey = unreadIndexes.get(unreadable)
  if (!byKey) {
    byKey = new Map()
    unreadIndexes.set(unreadable, byKey)
  }
  for (const fileId of fileIds) {
    const key = `${fileId} ${field}`
    let index = byKey.get(key)
    if (!index) {
      index = new Map()
      for (const line of unreadable.lines[fileId] as readonly NatRecord[]) {
        const named = (line.values as Record<string, string | undefined>)[field]
        if (named !== undefined && !index.has(named)) index.set(named, line)
      }
      byKey.set(key, index)
    }
    const line = index.get(value)
    if (line) return line
  }
  return undefined
}

/** The unreadable lines by file, field and value, made once per read set. */
const unreadIndexes = new WeakMap<NatUnreadable, Map<string, Map<string, NatRecord>>>()

/** Whether none of `fileIds` was read at all (a release 7.0 file): what refers to it is not reported line by line. */
export function notRead(context: ImportContext, fileIds: readonly NatFileId[]): boolean {
  return fileIds.some((fileId) => context.unreadable?.files.includes(fileId))
}

/**
 * The follow-on message for a line naming `what value`, which the set does not have: the unreadable
 * line that named it when there is one, or undefined (the caller says it is not in the file).
 */
export function missingBecauseUnread(
  context: ImportContext,
  fileIds: readonly NatFileId[],
  field: string,
  what: string,
): { message: string; action: string } | undefined {
  const line = unreadLineOf(context, fileIds, field, what.split(' ').at(-1)!)
  if (!line) {
    // Past the unreadable lines kept, the line that named it may be one of those only counted.
    const omitted = fileIds.reduce((sum, fileId) => sum + (context.unreadable?.omitted[fileId] ?? 0), 0)
    if (omitted === 0) return undefined
    const unread = fileIds.reduce((sum, fileId) => sum + (context.unreadable?.lines[fileId].length ?? 0), omitted)
    return {
      message: `${what[0]!.toUpperCase()}${what.slice(1)} is not on a line of ${fileIds.join(' or ')} that could be read, and ${unread} of its lines could not be read`,
      action: `Correct the lines of ${fileIds.join(' or ')} that could not be read, as their own problems say.`,
    }
  }
  return {
    message: `Line ${line.line} of ${line.fileId} (${what}) could not be read`,
    action: `Correct line ${line.line} of ${line.fileId} (${line.file}) as its own problems say; this line then reads with it.`,
  }
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
