// Records to the fixed-width lines of a NAT file.
import { formatFieldValue } from './field-values.ts'
import { natFileName } from './file-names.ts'
import { layoutOf, type NatFileId, type NatValues } from './layouts/index.ts'
import type { NatProblem } from './problems.ts'

/** AVETMISS files end each line with a carriage return and a line feed. */
export const NAT_LINE_END = '\r\n'

/** Thrown when records cannot be written as they are; `problems` says where (line = record's position). */
export class NatWriteError extends Error {
  readonly problems: NatProblem[]

  constructor(problems: NatProblem[]) {
    const first = problems[0]
    super(
      `${problems.length} value(s) cannot be written${first ? `, the first in ${first.file} line ${first.line}: ${first.message}` : ''}`,
    )
    this.name = 'NatWriteError'
    this.problems = problems
  }
}

const fieldNames = new Map<NatFileId, ReadonlySet<string>>()

function fieldNamesOf(fileId: NatFileId): ReadonlySet<string> {
  let names = fieldNames.get(fileId)
  if (!names) {
    names = new Set(layoutOf(fileId).fields.map((field) => field.name))
    fieldNames.set(fileId, names)
  }
  return names
}

function formatLine(fileId: NatFileId, values: object, line: number, problems: NatProblem[]): string {
  const layout = layoutOf(fileId)
  const file = natFileName(fileId)
  const given = values as Record<string, string | undefined>
  // A key the layout does not know is most likely a misspelt field whose value would be lost.
  const known = fieldNamesOf(fileId)
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      problems.push({ file, line, field: name, value: given[name], message: `${fileId} has no field ${name}` })
    }
  }
  // Joined, not concatenated: a line built with += is a chain of a string per field until it is
  // flattened, and a file set of 100,000 lines held that way took several times the memory.
  const parts: string[] = []
  for (const field of layout.fields) {
    const outcome = formatFieldValue(field, given[field.name])
    if (outcome.ok) parts.push(outcome.value)
    else {
      problems.push({ file, line, field: field.name, value: given[field.name], message: outcome.message })
      parts.push(' '.repeat(field.length))
    }
  }
  return parts.join('')
}

/**
 * One record as its fixed-width line, `recordLength` characters with no line end. Throws a
 * NatWriteError if a value does not fit its field.
 */
export function formatNatRecord<F extends NatFileId>(fileId: F, values: NatValues<F>): string {
  const problems: NatProblem[] = []
  const text = formatLine(fileId, values, 1, problems)
  if (problems.length > 0) throw new NatWriteError(problems)
  return text
}

/**
 * A whole file: every record's line followed by CRLF. Every value is checked before anything is
 * returned, and a NatWriteError lists them all.
 */
export function formatNatFile<F extends NatFileId>(fileId: F, records: readonly NatValues<F>[]): string {
  const problems: NatProblem[] = []
  const lines = records.map((values, index) => formatLine(fileId, values, index + 1, problems) + NAT_LINE_END)
  if (problems.length > 0) throw new NatWriteError(problems)
  return lines.join('')
}
