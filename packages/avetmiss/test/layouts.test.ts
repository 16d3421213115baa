// The layouts as published: each file's stated record length is the sum of its field lengths, and
// every field starts where the previous one ended. The lengths asserted here are the published ones,
// written out independently of the layout files.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NAT_FILE_IDS, NAT_LAYOUTS, type NatFileId } from '../src/index.ts'

const PUBLISHED_RECORD_LENGTHS: Record<NatFileId, number> = {
  NAT00010: 448,
  NAT00020: 180,
  NAT00030: 114,
  NAT00030A: 130,
  NAT00060: 123,
  NAT00080: 347,
  NAT00085: 557,
  NAT00090: 12,
  NAT00100: 14,
  NAT00120: 158,
  NAT00130: 72,
}

describe('NAT file layouts', () => {
  it('covers the eleven files of the VET Provider Collection this package handles', () => {
    assert.deepEqual(NAT_FILE_IDS, Object.keys(PUBLISHED_RECORD_LENGTHS))
  })

  for (const fileId of NAT_FILE_IDS) {
    const layout = NAT_LAYOUTS[fileId]
    describe(fileId, () => {
      it(`states the published record length, ${PUBLISHED_RECORD_LENGTHS[fileId]}, and its fields add up to it`, () => {
        assert.equal(layout.fileId, fileId)
        assert.equal(layout.recordLength, PUBLISHED_RECORD_LENGTHS[fileId])
        const sum = layout.fields.reduce((total, field) => total + field.length, 0)
        assert.equal(sum, layout.recordLength)
      })

      it('places each field right after the previous one, from column 1 to the record length', () => {
        let next = 1
        for (const field of layout.fields) {
          assert.equal(field.start, next, `${field.name} starts at ${field.start}, expected ${next}`)
          next = field.start + field.length
        }
        assert.equal(next - 1, layout.recordLength)
      })

      it('names each field once, and gives dates a length of 8', () => {
        const names = layout.fields.map((field) => field.name)
        assert.equal(new Set(names).size, names.length)
        for (const field of layout.fields) if (field.type === 'date') assert.equal(field.length, 8, field.name)
      })
    })
  }
})
