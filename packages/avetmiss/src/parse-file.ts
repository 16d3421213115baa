// One NAT file's text to records, every problem collected on the way.
import { readFieldValue } from './field-values.ts'
import { natRecordIdentity } from './identity.ts'
import type { FieldLayout } from './layout.ts'
import type { NatFileId, NatValues } from './layouts/index.ts'
import { DEFAULT_MAX_PROBLEMS, type NatProblem, ProblemCollector } from './problems.ts'
import { isRelease7, type NatReadLayout, readLayoutOf } from './read-layouts.ts'
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

const END_OF_FILE = 0x1a
const isLineEndOrSpace = (code: number) => code === 0x0d || code === 0x0a || code === 0x20

/**
 * The text without the end-of-file byte (Ctrl-Z, 0x1A) that old Windows and DOS tools write after the
 * last line, and without the line ends and spaces around it; any other text is returned as it is.
 */
function withoutEndOfFileByte(text: string): string {
  let end = text.length
  while (end > 0 && isLineEndOrSpace(text.charCodeAt(end - 1))) end -= 1
  if (end === 0 || text.charCodeAt(end - 1) !== END_OF_FILE) return text
  while (end > 0 && (text.charCodeAt(end - 1) === END_OF_FILE || isLineEndOrSpace(text.charCodeAt(end - 1)))) end -= 1
  return text.slice(0, end)
}

/** The SMS's re-export, the one thing a data officer can do about a file. */
const EXPORT_AGAIN = 'and export the NAT files again'

/** How a file was read: its layout, or the release 7.0 signs that kept it from being read. */
export interface NatFileReading {
  /** The layout's name (`AVETMISS 8.0 NAT00030, 130 characters ...`), or the release it is. */
  layout: string
  /** True when the file is of release 7.0 and none of its lines was read. */
  release7?: boolean
  /** True when the file has no line at all (zero bytes, or nothing but blank lines and Ctrl-Z). */
  empty?: boolean
}

/** What a caller can learn beyond the records: how the file was read, and the lines that could not be. */
export interface NatParseSink<F extends NatFileId> {
  reading?: NatFileReading
  /**
   * Each line with a problem, with the values that did read (its identifiers, mostly): the first
   * MAX_UNREADABLE_LINES of the file, the others counted in `unreadableOmitted`.
   */
  unreadable?: NatRecord<F>[]
  unreadableOmitted?: number
  /** Lines read (a file not read on past MAX_UNREADABLE_LINES_READ: those before it stopped). */
  linesRead?: number
  /**
   * Given each record without a problem, with where its line's content (trailing spaces left out) is
   * in `body`: when it answers true it keeps the record its own way (an index of where the line is, to
   * read it again later with natRecordAt) and the record is left out of the result.
   */
  take?(record: NatRecord<F>, at: number, length: number): boolean
  /** Set by the reader: the text its lines were read from (what `take`'s positions are in) and the layout. */
  body?: string
  layout?: NatReadLayout
}

/** Unreadable lines kept per file for follow-on messages: a file of a million broken lines stays bounded. */
export const MAX_UNREADABLE_LINES = 10_000

/**
 * Lines that cannot be records (blank, or with a problem) read in one file before the reader stops
 * reading it: its other lines are counted, one problem each, and not read. A NAT file this broken is
 * not one the SMS wrote as AVETMISS 8.0, and reading on only multiplies the problems (a 50 KB zip of
 * 23 million short lines is 289 million of them). docs/decisions.md, "NAT imports: bounded ...".
 */
export const MAX_UNREADABLE_LINES_READ = 1000

function actionFor(field: FieldLayout, value: string, identity: string | undefined): string {
  const forRecord = identity ? ` for ${identity}` : ''
  if (value === '') return `In the SMS, fill in ${field.label}${forRecord}, ${EXPORT_AGAIN}.`
  switch (field.type) {
    case 'numeric':
      return `In the SMS, correct ${field.label}${forRecord} from "${value}" to a number (digits only), ${EXPORT_AGAIN}.`
    case 'date':
      return `In the SMS, correct ${field.label}${forRecord} from "${value}" to a date that exists (the file writes it DDMMYYYY), ${EXPORT_AGAIN}.`
    default:
      return `In the SMS, correct ${field.label}${forRecord}, ${EXPORT_AGAIN}.`
  }
}

/**
 * Reads the records of one file. Tolerant of CRLF or LF, of trailing spaces present or trimmed (a
 * short line's missing columns are blank fields), of blank lines and a Ctrl-Z at the end, and of every
 * published layout of the file (read-layouts.ts). Strict about a line whose text runs past the layout's
 * record length, a non-numeric value in a numeric field, a date that does not exist and a blank
 * required field: every one of them on a line is reported, and a record with any problem is left out
 * of the result (and given to `sink.unreadable` with the values that did read). A release 7.0 file is
 * one problem, and none of its lines is read.
 */
export function parseNatText<F extends NatFileId>(
  fileId: F,
  file: string,
  text: string,
  problems: ProblemCollector,
  sink: NatParseSink<F> = {},
): NatRecord<F>[] {
  const body = withoutTrailingBlankLines(withoutEndOfFileByte(text))
  const layout = readLayoutOf(fileId, firstLines(body, LAYOUT_SAMPLE_LINES))
  if (isRelease7(layout)) {
    const count = lineCount(body, 0)
    sink.reading = { layout: 'AVETMISS release 7.0 (not read)', release7: true }
    problems.add({
      file,
      line: 0,
      message: `This is a release 7.0 file: ${layout.evidence}. The service reads AVETMISS release 8.0 files, so none of its ${count} lines was read`,
      correctiveAction: `Export the NAT files again from the SMS as AVETMISS release 8.0 (the VET Provider Collection specification in force), then import them.`,
    })
    return []
  }
  sink.reading = body === '' ? { layout: 'empty (no line)', empty: true } : { layout: layout.name }
  sink.body = body
  sink.layout = layout

  const records: NatRecord<F>[] = []
  let unreadableLines = 0
  let start = 0
  sink.linesRead = 0
  for (let line = 1; start < body.length; line++) {
    // Line by line through the text, never split whole: a file of 23 million short lines makes no array of them.
    const newline = body.indexOf('\n', start)
    const end = newline === -1 ? body.length : newline
    const lineStart = start
    const raw = body.slice(start, end > start && body.charCodeAt(end - 1) === 0x0d ? end - 1 : end)
    start = newline === -1 ? body.length : newline + 1
    if (unreadableLines === MAX_UNREADABLE_LINES_READ) {
      // Bounded work: a file this broken is not read on; its other lines are counted, one problem each.
      // Said always (past the problems kept too): it is what explains the count.
      const rest = 1 + lineCount(body, start)
      problems.add(
        {
          file,
          line,
          message: `Reading of ${file} stopped at line ${line}: ${MAX_UNREADABLE_LINES_READ} of its lines could not be records, so its other ${rest} ${rest === 1 ? 'line was' : 'lines were'} not read (each counted as a problem)`,
          correctiveAction: `Look at the lines named above: ${file} is not a ${fileId} file the SMS wrote as AVETMISS 8.0, or its export went wrong. Export the NAT files again from the SMS, then import them.`,
        },
        { keep: true },
      )
      problems.countMore(rest - 1)
      sink.unreadableOmitted = (sink.unreadableOmitted ?? 0) + rest
      break
    }
    sink.linesRead = line
    // Only spaces are trailing padding; any other character past the record length is data.
    const content = withoutTrailingSpaces(raw)
    if (content === '') {
      unreadableLines += 1
      problems.add({
        file,
        line,
        message: 'Blank line: every line of a NAT file is a record',
        correctiveAction: `Remove the blank line ${line} from ${file}, or export the file again from the SMS.`,
      })
      continue
    }
    const record = readLine(fileId, file, line, content, layout, problems)
    if (record.valid) {
      if (!sink.take?.(record.record, lineStart, content.length)) records.push(record.record)
      continue
    }
    unreadableLines += 1
    if (sink.unreadable && sink.unreadable.length < MAX_UNREADABLE_LINES) sink.unreadable.push(record.record)
    else if (sink.unreadable) sink.unreadableOmitted = (sink.unreadableOmitted ?? 0) + 1
  }
  return records
}

/** Lines judged for the layout: the first this many (a layout is every line's, so they tell it). */
const LAYOUT_SAMPLE_LINES = 100_000

function* firstLines(text: string, most: number): Generator<string> {
  let start = 0
  for (let n = 0; n < most && start < text.length; n++) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline
    yield text.slice(start, end > start && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end)
    start = newline === -1 ? text.length : newline + 1
  }
}

/** The lines of the text from `start` on (a last line without a line end counts). */
function lineCount(text: string, start: number): number {
  if (start >= text.length) return 0
  let count = 1
  for (let at = text.indexOf('\n', start); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1))
    count += 1
  return count
}

/** The text without the blank lines (spaces only, or nothing) at its end, and without its last line end. */
function withoutTrailingBlankLines(text: string): string {
  let end = text.length
  while (end > 0 && isLineEndOrSpace(text.charCodeAt(end - 1))) end -= 1
  // Keep the spaces of the last line (padding), up to its line end.
  const lineEnd = text.indexOf('\n', end)
  const cut = lineEnd === -1 ? text.length : text.charCodeAt(lineEnd - 1) === 0x0d ? lineEnd - 1 : lineEnd
  return end === 0 ? '' : text.slice(0, Math.max(cut, end))
}

/** Every problem of one line, and its values (those that read, when there was a problem). */
function readLine<F extends NatFileId>(
  fileId: F,
  file: string,
  line: number,
  content: string,
  layout: NatReadLayout,
  problems: ProblemCollector,
): { valid: boolean; record: NatRecord<F> } {
  const values: Record<string, string> = {}
  const faults: { field: FieldLayout; value: string; message: string }[] = []
  for (const field of layout.fields) {
    const columns = content.slice(field.start - 1, field.start - 1 + field.length)
    const outcome = readFieldValue(field, columns)
    if (!outcome.ok) faults.push({ field, value: columns.trim(), message: outcome.message })
    else if (outcome.value !== undefined) values[field.name] = outcome.value
  }
  const identity = natRecordIdentity(fileId, values)
  const tooLong = content.length > layout.recordLength
  if (tooLong) {
    const past = content.slice(layout.recordLength)
    problems.add({
      file,
      line,
      value: past,
      message: `Line is ${content.length} characters long; a ${fileId} record is ${layout.recordLength}`,
      ...(identity ? { record: identity } : {}),
      correctiveAction: `The text from column ${layout.recordLength + 1} ("${past}") is in no field of ${layout.name}: in the SMS, look at what it wrote past the end of this record${identity ? ` (${identity})` : ''}, ${EXPORT_AGAIN} in one published layout.`,
    })
  }
  for (const fault of faults) {
    problems.add({
      file,
      line,
      field: fault.field.name,
      value: fault.value,
      message: fault.message,
      ...(identity ? { record: identity } : {}),
      correctiveAction: actionFor(fault.field, fault.value, identity),
    })
  }
  return { valid: !tooLong && faults.length === 0, record: { fileId, file, line, values: values as NatValues<F> } }
}

const NO_PROBLEMS = new ProblemCollector(0)

/**
 * The record of a line read before without a problem, read again from its content (the line without
 * its trailing spaces) with the layout its file was read with: the same values as the first reading.
 */
export function natRecordAt<F extends NatFileId>(
  fileId: F,
  file: string,
  line: number,
  content: string,
  layout: NatReadLayout,
): NatRecord<F> {
  return readLine(fileId, file, line, content, layout, NO_PROBLEMS).record
}

export interface NatTextReadResult<F extends NatFileId> {
  records: NatRecord<F>[]
  problems: NatProblem[]
  problemCount: number
  problemsTruncated: boolean
  /** How the file was read: the layout's name (`AVETMISS 8.0 NAT00120, 158 characters (national)`). */
  layout: string
}

/** Reads the text of one NAT file, named `file` in the problems, keeping at most `maxProblems` of them. */
export function readNatText<F extends NatFileId>(
  fileId: F,
  file: string,
  text: string,
  options: { maxProblems?: number } = {},
): NatTextReadResult<F> {
  const problems = new ProblemCollector(options.maxProblems ?? DEFAULT_MAX_PROBLEMS)
  const sink: NatParseSink<F> = {}
  const records = parseNatText(fileId, file, text, problems, sink)
  return {
    records,
    problems: problems.problems,
    problemCount: problems.count,
    problemsTruncated: problems.truncated,
    layout: sink.reading?.layout ?? '',
  }
}
