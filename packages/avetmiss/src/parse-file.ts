// One NAT file's text to records, every problem collected on the way.
import { readFieldValue } from './field-values.ts'
import { layoutOf, type NatFileId, type NatValues } from './layouts/index.ts'
import { DEFAULT_MAX_PROBLEMS, type NatProblem, ProblemCollector } from './problems.ts'
import type { NatRecord } from './records.ts'

/**
 * The line without its trailing spaces. A loop, not / +$/: the regular expression retries from every
 * space of every run of blanks inside the line, which made it the largest cost of reading a file.
 */
function withoutTrailingSpaces(line: string): string {
  let end = line.length
  while (end > 0 && line.charCodeAt(end - 1) === 0x20) end -= 1
  return end === line.length ? line : line.slice(0, end)
}

/**
 * Reads the records of one file. Tolerant of CRLF or LF, of trailing spaces present or trimmed (a
 * short line's missing columns are blank fields), and of blank lines at the end. Strict about a line
 * whose text runs past the record length, a non-numeric value in a numeric field, a date that does
 * not exist and a blank required field. A record with any problem is left out of the result.
 */
export function parseNatText<F extends NatFileId>(
  fileId: F,
  file: string,
  text: string,
  problems: ProblemCollector,
): NatRecord<F>[] {
  const layout = layoutOf(fileId)
  const lines = text.split(/\r?\n/)
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop()

  const records: NatRecord<F>[] = []
  for (const [index, raw] of lines.entries()) {
    const line = index + 1
    // Only spaces are trailing padding; any other character past the record length is data.
    const content = withoutTrailingSpaces(raw)
    if (content === '') {
      problems.add({ file, line, message: 'Blank line: every line of a NAT file is a record' })
      continue
    }
    if (content.length > layout.recordLength) {
      problems.add({
        file,
        line,
        value: content.slice(layout.recordLength),
        message: `Line is ${content.length} characters long; a ${fileId} record is ${layout.recordLength}`,
      })
      continue
    }

    const values: Record<string, string> = {}
    let valid = true
    for (const field of layout.fields) {
      const columns = content.slice(field.start - 1, field.start - 1 + field.length)
      const outcome = readFieldValue(field, columns)
      if (!outcome.ok) {
        problems.add({ file, line, field: field.name, value: columns.trim(), message: outcome.message })
        valid = false
      } else if (outcome.value !== undefined) {
        values[field.name] = outcome.value
      }
    }
    if (valid) records.push({ fileId, file, line, values: values as NatValues<F> })
  }
  return records
}

export interface NatTextReadResult<F extends NatFileId> {
  records: NatRecord<F>[]
  problems: NatProblem[]
  problemCount: number
  problemsTruncated: boolean
}

/** Reads the text of one NAT file, named `file` in the problems, keeping at most `maxProblems` of them. */
export function readNatText<F extends NatFileId>(
  fileId: F,
  file: string,
  text: string,
  options: { maxProblems?: number } = {},
): NatTextReadResult<F> {
  const problems = new ProblemCollector(options.maxProblems ?? DEFAULT_MAX_PROBLEMS)
  const records = parseNatText(fileId, file, text, problems)
  return { records, problems: problems.problems, problemCount: problems.count, problemsTruncated: problems.truncated }
}
