// Every file type against a hand-built line: the reader finds each field at its published position
// with its type (numbers keep their zeros, dates become YYYY-MM-DD), and the writer produces the very
// same line from bare values (alphanumeric padded with spaces, numeric with leading zeros).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  formatNatRecord,
  NAT_FILE_IDS,
  NAT_LAYOUTS,
  type NatFileId,
  type NatValues,
  readNatText,
} from '../src/index.ts'
import { GOLDEN, lineOf, readValuesOf, withBlanks, writeValuesOf } from './support/golden.ts'

function parseOne(fileId: NatFileId, line: string) {
  const { records, problems } = readNatText(fileId, `${fileId}.txt`, `${line}\r\n`)
  assert.deepEqual(problems, [])
  assert.equal(records.length, 1)
  return records[0]!
}

describe('golden lines', () => {
  for (const fileId of NAT_FILE_IDS) {
    const pieces = GOLDEN[fileId]
    const line = lineOf(pieces)

    describe(fileId, () => {
      it('the hand-built line has every field of the layout, in order, with its type, and is a full record long', () => {
        const layout = NAT_LAYOUTS[fileId]
        assert.deepEqual(
          pieces.map((piece) => [piece.field, piece.type, piece.text.length]),
          layout.fields.map((field) => [field.name, field.type, field.length]),
        )
        assert.equal(line.length, layout.recordLength)
      })

      it('reads each field at its published position', () => {
        const record = parseOne(fileId, line)
        assert.deepEqual(record.values, readValuesOf(pieces))
        assert.equal(record.fileId, fileId)
        assert.equal(record.file, `${fileId}.txt`)
        assert.equal(record.line, 1)
      })

      it('writes the same line from bare values: text padded with spaces, numbers with zeros, dates as DDMMYYYY', () => {
        const written = formatNatRecord(fileId, writeValuesOf(pieces) as NatValues<typeof fileId>)
        assert.equal(written, line)
      })

      it('writes blank optional fields as spaces, and reads them back as absent', () => {
        const optional = NAT_LAYOUTS[fileId].fields.filter((field) => field.blankAllowed).map((field) => field.name)
        const sparse = withBlanks(pieces, optional)
        const written = formatNatRecord(fileId, writeValuesOf(sparse) as NatValues<typeof fileId>)
        assert.equal(written, lineOf(sparse))
        assert.deepEqual(parseOne(fileId, written).values, readValuesOf(sparse))
      })
    })
  }

  it('a numeric field keeps its leading zeros and a date its calendar day (NAT00120 columns by hand)', () => {
    const line = lineOf(GOLDEN.NAT00120)
    // 1-based published columns: outcome 72-73, hours attended 140-143, scheduled hours 154-157.
    assert.equal(line.slice(71, 73), '20')
    assert.equal(line.slice(139, 143), '0058')
    assert.equal(line.slice(153, 157), '0060')
    assert.equal(line.slice(52, 60), '03022026')
    const values = parseOne('NAT00120', line).values
    assert.equal(values.hoursAttended, '0058')
    assert.equal(values.activityStartDate, '2026-02-03')
    assert.equal(values.predominantDeliveryMode, 'I')
  })

  it('a date of birth filled with @ (not stated) is read and written as it is', () => {
    const pieces = GOLDEN.NAT00080.map((piece) =>
      piece.field === 'dateOfBirth' ? { ...piece, text: '@@@@@@@@', read: '@@@@@@@@', write: '@@@@@@@@' } : piece,
    )
    const line = lineOf(pieces)
    assert.equal(parseOne('NAT00080', line).values.dateOfBirth, '@@@@@@@@')
    assert.equal(formatNatRecord('NAT00080', writeValuesOf(pieces)), line)
  })
})
