// What the reader forgives: the ways real NAT files differ from the letter of the specification
// without being wrong.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readNatEntries, readNatText } from '../src/index.ts'
import { completeSet, encode, entries } from './support/file-sets.ts'
import { GOLDEN, lineOf, readValuesOf, withBlanks } from './support/golden.ts'

const NAT00120_LINE = lineOf(GOLDEN.NAT00120)

describe('reader tolerance', () => {
  it('trailing spaces present or trimmed: a line missing its blank trailing fields reads like the full line', () => {
    const sparse = withBlanks(GOLDEN.NAT00080, [
      'addressBuildingPropertyName',
      'addressFlatUnitDetails',
      'addressStreetNumber',
      'addressStreetName',
      'surveyContactStatus',
      'statisticalAreaLevel1Identifier',
      'statisticalAreaLevel2Identifier',
    ])
    const full = lineOf(sparse)
    const trimmed = full.trimEnd()
    assert.equal(full.length, 347)
    assert.equal(trimmed.length, 161, 'the line ends with the state identifier at 160-161')
    const fromFull = readNatText('NAT00080', 'NAT00080.txt', `${full}\r\n`)
    const fromTrimmed = readNatText('NAT00080', 'NAT00080.txt', `${trimmed}\r\n`)
    assert.deepEqual(fromTrimmed.problems, [])
    assert.deepEqual(fromTrimmed.records, fromFull.records)
    assert.deepEqual(fromTrimmed.records[0]!.values, readValuesOf(sparse))
  })

  it('spaces beyond the record length are trailing padding, not data', () => {
    const padded = lineOf(GOLDEN.NAT00030) + ' '.repeat(16) // some systems pad NAT00030 to 130
    const { records, problems } = readNatText('NAT00030', 'NAT00030.txt', `${padded}\r\n`)
    assert.deepEqual(problems, [])
    assert.equal(records[0]!.values.nominalHours, '0690')
  })

  it('CRLF and LF line ends read the same, and so does a file without a final line end', () => {
    const lines = [NAT00120_LINE, NAT00120_LINE.replace('S000123', 'S000124')]
    const crlf = readNatText('NAT00120', 'NAT00120.txt', lines.join('\r\n'))
    const lf = readNatText('NAT00120', 'NAT00120.txt', `${lines.join('\n')}\n`)
    assert.equal(crlf.records.length, 2)
    assert.deepEqual(lf.records, crlf.records)
    assert.deepEqual(
      crlf.records.map((record) => [record.line, record.values.clientIdentifier]),
      [
        [1, 'S000123'],
        [2, 'S000124'],
      ],
    )
  })

  it('blank lines at the end of a file are not records', () => {
    const { records, problems } = readNatText('NAT00120', 'NAT00120.txt', `${NAT00120_LINE}\r\n\r\n   \r\n`)
    assert.deepEqual(problems, [])
    assert.equal(records.length, 1)
  })

  it('an optional table may be absent or empty; required files make a set without problems', () => {
    const result = readNatEntries(entries(completeSet({ 'NAT00130.txt': [] })))
    assert.deepEqual(result.problems, [])
    assert.equal(result.problemCount, 0)
    assert.deepEqual(result.records.NAT00130, [])
    assert.deepEqual(result.records.NAT00090, [])
    assert.deepEqual(result.records.NAT00100, [])
    assert.equal(result.records.NAT00120.length, 1)
    assert.ok(result.files.some((file) => file.fileId === 'NAT00130'))
    assert.ok(!result.files.some((file) => file.fileId === 'NAT00090'))
  })

  it('file names in upper or lower case, with or without .txt, are recognised', () => {
    const set = completeSet()
    delete set['NAT00120.txt']
    delete set['NAT00080.txt']
    delete set['NAT00030.txt']
    delete set['NAT00090.txt']
    const result = readNatEntries(
      entries({
        ...set,
        'nat00120.TXT': [NAT00120_LINE],
        NAT00080: [lineOf(GOLDEN.NAT00080)],
        'nat00030a.txt': [lineOf(GOLDEN.NAT00030A)],
        'Nat00090.Txt': [lineOf(GOLDEN.NAT00090)],
      }),
    )
    assert.deepEqual(result.problems, [])
    assert.equal(result.records.NAT00120[0]!.file, 'nat00120.TXT')
    assert.equal(result.records.NAT00080[0]!.file, 'NAT00080')
    assert.equal(result.records.NAT00030A[0]!.values.programIdentifier, 'LSS001')
    assert.equal(result.records.NAT00090[0]!.values.disabilityTypeIdentifier, '14')
  })

  it('other files are listed as ignored, not read', () => {
    const result = readNatEntries(
      entries(completeSet({ 'NAT00005.txt': ['anything'], 'readme.md': ['# notes'], 'NAT00120.csv': ['x'] })),
    )
    assert.deepEqual(result.problems, [])
    assert.deepEqual(result.ignoredFiles, ['NAT00005.txt', 'NAT00120.csv', 'readme.md'])
  })

  it('a byte-order mark is dropped, and a Windows-1252 file keeps its columns', () => {
    const name = lineOf(GOLDEN.NAT00085).replace('Alex'.padEnd(40), 'Zoë'.padEnd(40))
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${lineOf(GOLDEN.NAT00090)}\r\n`)])
    const set = readNatEntries([...entries(completeSet({ 'NAT00085.txt': [name] })), { name: 'NAT00090.txt', bytes }])
    assert.deepEqual(set.problems, [])
    assert.equal(encode(name).length, 557, 'one byte a character')
    assert.equal(set.records.NAT00085[0]!.values.clientFirstGivenName, 'Zoë')
    assert.equal(set.records.NAT00085[0]!.values.clientFamilyName, 'Citizen')
    assert.equal(set.records.NAT00090[0]!.values.clientIdentifier, 'S000123')
  })
})
