// Reads a release of a dataset from a CSV or TSV file: comment lines start with #, then a header
// with the columns code and description (required) and avetmissCode, businessEffectiveFrom,
// businessEffectiveTo (optional). Every problem is reported with its line, and a file with any
// problem is refused whole.
import { parse } from 'csv-parse/sync'
import { DATE_RANGE_TEXT, isCalendarDate } from '../../domain/calendar.ts'

export interface ReleaseRecord {
  code: string
  description: string
  avetmissCode: string | null
  businessEffectiveFrom: string | null
  businessEffectiveTo: string | null
}

export class ReleaseFileError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`The file was refused; nothing was changed:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.problems = problems
  }
}

const REQUIRED = ['code', 'description'] as const
const KNOWN = new Set(['code', 'description', 'avetmissCode', 'businessEffectiveFrom', 'businessEffectiveTo'])

export function parseReleaseFile(text: string, fileName: string): ReleaseRecord[] {
  const delimiter = fileName.toLowerCase().endsWith('.tsv') ? '\t' : ','
  let rows: { record: string[]; info: { lines: number } }[]
  try {
    rows = parse(text, {
      delimiter,
      comment: '#',
      comment_no_infix: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      bom: true,
      quote: delimiter === '\t' ? false : '"',
    }) as never
  } catch (error) {
    throw new ReleaseFileError([error instanceof Error ? error.message : String(error)])
  }
  const [header, ...body] = rows
  if (!header) throw new ReleaseFileError(['the file has no header line'])
  const columns = header.record.map((name) => name.trim())
  const problems: string[] = []
  for (const name of REQUIRED)
    if (!columns.includes(name)) problems.push(`line ${header.info.lines}: the header has no ${name} column`)
  for (const name of columns)
    if (!KNOWN.has(name)) problems.push(`line ${header.info.lines}: unknown column ${JSON.stringify(name)}`)
  if (new Set(columns).size !== columns.length) problems.push(`line ${header.info.lines}: a column is named twice`)
  if (problems.length > 0) throw new ReleaseFileError(problems)

  const seen = new Map<string, number>()
  const records: ReleaseRecord[] = []
  for (const { record, info } of body) {
    const line = info.lines
    if (record.length !== columns.length) {
      problems.push(`line ${line}: ${record.length} fields where the header has ${columns.length}`)
      continue
    }
    const cell = (name: string): string | null => {
      const index = columns.indexOf(name)
      const value = index < 0 ? '' : record[index]!
      return value === '' ? null : value
    }
    for (const [index, value] of record.entries()) {
      if (value !== value.trim() || /[\t\r\n]/.test(value))
        problems.push(`line ${line}: ${columns[index]} has surrounding spaces or line breaks`)
    }
    const code = cell('code')
    const description = cell('description')
    if (!code) problems.push(`line ${line}: empty code`)
    if (!description) problems.push(`line ${line}: empty description`)
    if (code) {
      const first = seen.get(code)
      if (first !== undefined)
        problems.push(`line ${line}: duplicate code ${JSON.stringify(code)} (first on line ${first})`)
      else seen.set(code, line)
    }
    const from = cell('businessEffectiveFrom')
    const to = cell('businessEffectiveTo')
    for (const [name, value] of [
      ['businessEffectiveFrom', from],
      ['businessEffectiveTo', to],
    ] as const) {
      if (value !== null && !isCalendarDate(value))
        problems.push(`line ${line}: ${name} ${JSON.stringify(value)} is not a date (YYYY-MM-DD) ${DATE_RANGE_TEXT}`)
    }
    if (from && to && isCalendarDate(from) && isCalendarDate(to) && to < from)
      problems.push(`line ${line}: businessEffectiveTo is before businessEffectiveFrom`)
    if (code && description)
      records.push({
        code,
        description,
        avetmissCode: cell('avetmissCode'),
        businessEffectiveFrom: from,
        businessEffectiveTo: to,
      })
  }
  if (problems.length > 0) throw new ReleaseFileError(problems)
  if (records.length === 0)
    throw new ReleaseFileError(['the file has no records; a dataset is never emptied by a release'])
  return records
}
