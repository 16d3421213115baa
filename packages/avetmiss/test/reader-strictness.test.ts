// What the reader refuses, and how it says so: every problem names the file, the 1-based line, the
// layout's field and the value found, and reading goes on to find the rest.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readNatEntries, readNatText } from '../src/index.ts'
import { completeSet, entries } from './support/file-sets.ts'
import { GOLDEN, lineOf } from './support/golden.ts'

const LINE = lineOf(GOLDEN.NAT00120)
/** The NAT00120 line with the text at 1-based published columns [start, start + text.length) replaced. */
const withColumns = (start: number, text: string) =>
  LINE.slice(0, start - 1) + text + LINE.slice(start - 1 + text.length)

function problemsOf(lines: string[]) {
  return readNatText('NAT00120', 'nat00120.txt', lines.join('\r\n'))
}

describe('reader strictness', () => {
  it('a line longer than the record length is refused, with the text that runs past it', () => {
    const { records, problems } = problemsOf([LINE, `${LINE}X9`])
    assert.equal(records.length, 1)
    assert.deepEqual(
      problems.map(({ file, line, value, message }) => ({ file, line, value, message })),
      [
        {
          file: 'nat00120.txt',
          line: 2,
          value: 'X9',
          message: 'Line is 160 characters long; a NAT00120 record is 158',
        },
      ],
    )
    assert.match(problems[0]!.correctiveAction!, /from column 159 \("X9"\)/)
  })

  it('a non-numeric value in a numeric field names the field and the value', () => {
    const { records, problems } = problemsOf([LINE, LINE, withColumns(154, '6O')])
    assert.equal(records.length, 2)
    assert.equal(problems.length, 1)
    assert.deepEqual(
      { ...problems[0], message: undefined, correctiveAction: undefined },
      {
        file: 'nat00120.txt',
        line: 3,
        field: 'scheduledHours',
        value: '6O60',
        message: undefined,
        correctiveAction: undefined,
        record: 'client S000123, subject BSBWHS411, program BSB40120, location CBD01, starting 03/02/2026',
      },
    )
    assert.equal(
      problems[0]!.correctiveAction,
      'In the SMS, correct Scheduled hours for client S000123, subject BSBWHS411, program BSB40120, location CBD01, starting 03/02/2026 from "6O60" to a number (digits only), and export the NAT files again.',
    )
    assert.match(problems[0]!.message, /Scheduled hours must be a number/)
  })

  it('an impossible date (31022026) is refused, and so is one that is not DDMMYYYY', () => {
    const { records, problems } = problemsOf([withColumns(53, '31022026'), withColumns(61, '2026-06-')])
    assert.equal(records.length, 0)
    assert.deepEqual(
      problems.map(({ file, line, field, value }) => ({ file, line, field, value })),
      [
        { file: 'nat00120.txt', line: 1, field: 'activityStartDate', value: '31022026' },
        { file: 'nat00120.txt', line: 2, field: 'activityEndDate', value: '2026-06-' },
      ],
    )
    assert.match(problems[0]!.message, /Activity start date must be a date that exists/)
  })

  it('29 February is a date only in a leap year', () => {
    assert.equal(problemsOf([withColumns(53, '29022028')]).problems.length, 0)
    assert.equal(problemsOf([withColumns(53, '29022027')]).problems[0]?.field, 'activityStartDate')
    assert.equal(problemsOf([withColumns(53, '29021900')]).problems[0]?.field, 'activityStartDate')
  })

  it("a date outside the service's range, 1900 to 9999 (01010000, 31121899), is refused as a date that does not exist", () => {
    for (const date of ['01010000', '01010001', '31121899']) {
      const { problems } = problemsOf([withColumns(53, date)])
      assert.equal(problems[0]?.field, 'activityStartDate', date)
      assert.match(problems[0]!.message, /must be a date that exists, from 1900 to 9999/)
    }
    assert.deepEqual(problemsOf([withColumns(53, '01011900'), withColumns(61, '31129999')]).problems, [])
  })

  it('a blank required field is a problem; a blank optional one is not', () => {
    const noClient = withColumns(21, ' '.repeat(10))
    const noProgram = withColumns(43, ' '.repeat(10))
    const { records, problems } = problemsOf([noClient, noProgram])
    assert.deepEqual(
      problems.map(({ line, field, value, message }) => ({ line, field, value, message })),
      [{ line: 1, field: 'clientIdentifier', value: '', message: 'Client identifier must not be blank' }],
    )
    assert.equal(records.length, 1)
    assert.equal(records[0]!.line, 2)
    assert.equal(records[0]!.values.programIdentifier, undefined)
  })

  it('a short line whose trimmed columns held a required field is refused for that field', () => {
    const { problems } = readNatText('NAT00130', 'NAT00130.txt', lineOf(GOLDEN.NAT00130).slice(0, 30))
    assert.deepEqual(
      problems.map((problem) => problem.field),
      ['dateProgramCompleted', 'issuedFlag'],
    )
  })

  it('a blank line inside a file is a problem, not a record', () => {
    const { records, problems } = problemsOf([LINE, '', LINE])
    assert.equal(records.length, 2)
    assert.deepEqual(
      problems.map(({ line, field }) => ({ line, field })),
      [{ line: 2, field: undefined }],
    )
  })

  it('every problem of a file is collected, in line order, and the good records are kept', () => {
    const { records, problems, problemCount, problemsTruncated } = problemsOf([
      withColumns(72, 'AB'),
      LINE,
      withColumns(140, '1.5 '),
      withColumns(53, '00002026'),
      LINE,
    ])
    assert.deepEqual(
      problems.map(({ line, field, value }) => [line, field, value]),
      [
        [1, 'outcomeIdentifierNational', 'AB'],
        [3, 'hoursAttended', '1.5'],
        [4, 'activityStartDate', '00002026'],
      ],
    )
    assert.equal(problemCount, 3)
    assert.equal(problemsTruncated, false)
    assert.deepEqual(
      records.map((record) => record.line),
      [2, 5],
    )
  })

  it('stops keeping problems at maxProblems, counts the rest and says so', () => {
    const bad = withColumns(72, '??')
    const { problems, problemCount, problemsTruncated } = readNatText(
      'NAT00120',
      'NAT00120.txt',
      Array(10).fill(bad).join('\n'),
      { maxProblems: 3 },
    )
    assert.equal(problems.length, 3)
    assert.deepEqual(
      problems.map((problem) => problem.line),
      [1, 2, 3],
    )
    assert.equal(problemCount, 10)
    assert.equal(problemsTruncated, true)
  })

  it('keeps 1000 problems by default, and past them the one that says where reading stopped', () => {
    const bad = withColumns(72, '??')
    const { problems, problemCount, problemsTruncated } = problemsOf(Array(1005).fill(bad))
    // Lines 1 to 1000 one problem each; the file is not read on after 1,000 lines that cannot be
    // records, and that is said (kept past the 1,000) at line 1001; lines 1001 to 1005 are counted.
    assert.equal(problems.length, 1001)
    assert.deepEqual(
      problems.slice(0, 1000).map((problem) => problem.line),
      Array.from({ length: 1000 }, (_, index) => index + 1),
    )
    assert.equal(problems[1000]!.line, 1001)
    assert.match(
      problems[1000]!.message,
      /stopped at line 1001: 1000 of its lines could not be records, so its other 5 lines were not read/,
    )
    assert.equal(problemCount, 1005)
    assert.equal(problemsTruncated, true)
  })

  it('a missing required file is a problem of the set; NAT00030 or NAT00030A will do for the program file', () => {
    const set = completeSet()
    delete set['NAT00080.txt']
    delete set['NAT00030.txt']
    const result = readNatEntries(entries(set))
    assert.deepEqual(
      result.problems.map(({ file, line, message }) => ({ file, line, message })),
      [
        { file: 'NAT00030', line: 0, message: 'NAT00030 or NAT00030A (Program) is missing from the set' },
        { file: 'NAT00080', line: 0, message: 'NAT00080 (Client) is missing from the set' },
      ],
    )
    const withA = readNatEntries(entries({ ...set, 'NAT00030A.txt': [lineOf(GOLDEN.NAT00030A)] }))
    assert.deepEqual(
      withA.problems.map((problem) => problem.file),
      ['NAT00080'],
    )
  })

  it('the same file twice under different names is a problem; the first name (in sort order) is read', () => {
    const other = LINE.replace('S000123', 'S000999')
    const result = readNatEntries(entries(completeSet({ nat00120: [other] })))
    assert.equal(result.problems.length, 1)
    assert.equal(result.problems[0]!.file, 'nat00120')
    assert.equal(result.problems[0]!.line, 0)
    assert.equal(result.records.NAT00120.length, 1)
    assert.equal(result.records.NAT00120[0]!.values.clientIdentifier, 'S000123')
  })

  it('problems across files come file by file, each under its own name', () => {
    const result = readNatEntries(
      entries(
        completeSet({
          'NAT00060.txt': [lineOf(GOLDEN.NAT00060).replace('0060', '60 h')],
          'NAT00130.txt': [lineOf(GOLDEN.NAT00130).replace('30062026', '30062O26')],
        }),
      ),
    )
    assert.deepEqual(
      result.problems.map(({ file, line, field, value }) => ({ file, line, field, value })),
      [
        { file: 'NAT00060.txt', line: 1, field: 'nominalHours', value: '60 h' },
        { file: 'NAT00130.txt', line: 1, field: 'dateProgramCompleted', value: '30062O26' },
      ],
    )
  })
})
