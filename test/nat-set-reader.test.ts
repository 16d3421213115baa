// The NAT set worker as the service's thread reads it (src/modules/nat-bridge/nat-set-reader.ts): the
// UIDs the held history is read for come a page at a time, and the pages hold every UID of the asked
// types once, in the mapping's order, whatever the page's size (the worker's chunks are of 2,500 NAT
// lines: 5,000 activities are a few), and the records drawn afterwards unchanged. A real worker thread
// on a generated set; no database.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { NatSetReader } from '../src/modules/nat-bridge/nat-set-reader.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'

const RTO = '90001'
const TYPES = ['SubjectEnrolment', 'ProgramEnrolment'] as const

describe('NatSetReader.uidsOf: the UIDs of the asked types a page at a time', () => {
  let set: NatSetReader
  before(async () => {
    const referenceData = await readSeedReferenceData()
    const generated = generateNatFileSet({ activities: 5_000, seed: 'uid pages', rtoCode: RTO, referenceData })
    set = await NatSetReader.open(natZipBytes(generated.entries), {
      rtoCode: RTO,
      datasets: referenceData,
      maxFilesBytes: 16 * 1024 * 1024,
      maxProblems: 100,
    })
  })
  after(() => set.close())

  const pagesOf = async (atLeast?: number) => {
    const pages: string[][][] = []
    for await (const page of set.uidsOf(TYPES, atLeast)) pages.push(page)
    return pages
  }

  it('gives every UID of each type once, in the mapping order, in pages of at least the size asked (the last may hold fewer)', async () => {
    const whole = await pagesOf(1_000_000)
    assert.equal(whole.length, 1, 'a page larger than the set: one page')
    const [subjects, programs] = whole[0]!
    assert.ok(subjects!.length >= 5_000, `${subjects!.length} subject enrolments`)
    assert.ok(programs!.length > 0, 'program enrolments')
    for (const atLeast of [1, 7, 250]) {
      const pages = await pagesOf(atLeast)
      assert.ok(pages.length > 1, `pages of ${atLeast}: ${pages.length}`)
      for (const page of pages.slice(0, -1))
        assert.ok(page[0]!.length + page[1]!.length >= atLeast, `a page of ${atLeast} or more`)
      assert.deepEqual(
        pages.flatMap((page) => page[0]!),
        subjects,
        `subject enrolments in pages of ${atLeast}`,
      )
      assert.deepEqual(
        pages.flatMap((page) => page[1]!),
        programs,
        `program enrolments in pages of ${atLeast}`,
      )
    }
  })

  it('leaves the records to draw as they were: each UID read by the pages is a record drawn, of its type', async () => {
    const [subjects, programs] = (await pagesOf(1_000_000))[0]!
    const drawn: { resourceType: string; uid: string }[] = []
    for (;;) {
      const records = await set.nextRecords(500)
      if (records.length === 0) break
      drawn.push(...records.map(({ resourceType, uid }) => ({ resourceType, uid })))
    }
    assert.deepEqual(
      drawn.filter((record) => record.resourceType === 'SubjectEnrolment').map((record) => record.uid),
      subjects,
    )
    assert.deepEqual(
      drawn.filter((record) => record.resourceType === 'ProgramEnrolment').map((record) => record.uid),
      programs,
    )
  })
})
