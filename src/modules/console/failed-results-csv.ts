// Failed validation results as CSV (RFC 4180), streamed a page at a time: a download of a batch with
// 100,000 results never holds them all. A cell that a spreadsheet would run as a formula (starting
// with = + - @, tab or carriage return) is prefixed with an apostrophe (OWASP, CSV injection).
import { Readable } from 'node:stream'
import type { ValidationResult } from '../validation/index.ts'

const HEADER = [
  'technicalRuleId',
  'ruleId',
  'validationMessageLevel',
  'message',
  'correctiveAction',
  'resourceType',
  'resourceUID',
  'changeTrackingIdentifier',
  'accessPath',
  'dataSource',
  'validationGroupingId',
  'relatedValidationResultCount',
]

export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const line = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`

function rowOf(result: ValidationResult): string {
  return line([
    result.technicalRuleId,
    result.ruleId,
    result.validationMessageLevel,
    result.message,
    result.correctiveAction,
    result.resourceType,
    result.resourceUID,
    result.changeTrackingIdentifier,
    result.accessPath.join(' '),
    result.dataSource,
    result.validationGroupingId,
    result.relatedValidationResultCount,
  ])
}

/** The CSV as a stream: the header, the first result already read, then the rest as they come. */
export function failedResultsCsv(
  first: IteratorResult<ValidationResult>,
  rest: AsyncIterator<ValidationResult>,
): Readable {
  async function* lines() {
    yield line(HEADER)
    if (first.done) return
    yield rowOf(first.value)
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield rowOf(next.value)
  }
  return Readable.from(lines())
}
