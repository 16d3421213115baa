// Writing NAT files: fixed-width lines with CRLF, to a folder or a zip, and what is written reads
// back as the same records.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  fileSetOf,
  formatNatFile,
  NAT_FILE_IDS,
  NAT_LAYOUTS,
  type NatFileSet,
  NatWriteError,
  natZipBytes,
  readNatFolder,
  readNatZip,
  writeNatFolder,
  writeNatZip,
} from '../src/index.ts'
import { GOLDEN, readValuesOf, withBlanks, writeValuesOf } from './support/golden.ts'

/** Two records of every file: the golden one, and one with its optional fields blank. */
function fullSet(): NatFileSet {
  const set: Record<string, object[]> = {}
  for (const fileId of NAT_FILE_IDS) {
    const optional = NAT_LAYOUTS[fileId].fields.filter((field) => field.blankAllowed).map((field) => field.name)
    set[fileId] = [writeValuesOf(GOLDEN[fileId]), writeValuesOf(withBlanks(GOLDEN[fileId], optional))]
  }
  return set as NatFileSet
}

/** What the reader gives back for fullSet(). */
function fullSetAsRead(): NatFileSet {
  const set: Record<string, object[]> = {}
  for (const fileId of NAT_FILE_IDS) {
    const optional = NAT_LAYOUTS[fileId].fields.filter((field) => field.blankAllowed).map((field) => field.name)
    set[fileId] = [readValuesOf(GOLDEN[fileId]), readValuesOf(withBlanks(GOLDEN[fileId], optional))]
  }
  return set as NatFileSet
}

function writeErrorOf(write: () => unknown): NatWriteError {
  try {
    write()
  } catch (error) {
    if (error instanceof NatWriteError) return error
    throw error
  }
  assert.fail('expected a NatWriteError')
}

describe('writer', () => {
  let work: string
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'vetrs-avetmiss-write-'))
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('writes one file per table given, NAT000xx.txt, every line the record length and ended by CRLF', async () => {
    const folder = join(work, 'lines')
    const paths = await writeNatFolder(folder, fullSet())
    assert.deepEqual((await readdir(folder)).sort(), NAT_FILE_IDS.map((fileId) => `${fileId}.txt`).sort())
    assert.equal(paths.length, NAT_FILE_IDS.length)
    for (const fileId of NAT_FILE_IDS) {
      const bytes = await readFile(join(folder, `${fileId}.txt`))
      const text = bytes.toString('latin1')
      assert.ok(text.endsWith('\r\n'), `${fileId} ends with CRLF`)
      const lines = text.split('\r\n')
      assert.equal(lines.pop(), '')
      assert.equal(lines.length, 2)
      for (const line of lines) {
        assert.equal(line.length, NAT_LAYOUTS[fileId].recordLength, fileId)
        assert.ok(!line.includes('\n'))
      }
      assert.equal(bytes.length, 2 * (NAT_LAYOUTS[fileId].recordLength + 2), 'one byte a character')
    }
  })

  it('round trip through a folder: reading what was written gives the same records', async () => {
    const folder = join(work, 'round-trip')
    await writeNatFolder(folder, fullSet())
    const result = await readNatFolder(folder)
    assert.deepEqual(result.problems, [])
    assert.deepEqual(fileSetOf(result.records), fullSetAsRead())
    // and writing what was read gives the same bytes again
    const again = join(work, 'round-trip-again')
    await writeNatFolder(again, fileSetOf(result.records))
    for (const fileId of NAT_FILE_IDS) {
      assert.deepEqual(await readFile(join(again, `${fileId}.txt`)), await readFile(join(folder, `${fileId}.txt`)))
    }
  })

  it('round trip through a zip, as bytes and as a file', async () => {
    const fromBytes = await readNatZip(natZipBytes(fullSet()))
    assert.deepEqual(fromBytes.problems, [])
    assert.deepEqual(fileSetOf(fromBytes.records), fullSetAsRead())
    const path = join(work, 'set.zip')
    await writeNatZip(path, fullSet())
    const fromFile = await readNatZip(path)
    assert.deepEqual(fileSetOf(fromFile.records), fullSetAsRead())
    assert.deepEqual(
      fromFile.files.map((file) => file.file),
      NAT_FILE_IDS.map((fileId) => `${fileId}.txt`),
    )
  })

  it('writes files already formatted (entries) byte for byte, to a folder and to a zip, faults included', async () => {
    // The second line runs past the record length: the formatter would refuse it, the entries keep it.
    const entries = [
      { name: 'NAT00090.txt', bytes: Buffer.from('S000123   14\r\nS000123   15VIC\r\n', 'latin1') },
      { name: 'NAT00130.txt', bytes: new Uint8Array() },
    ]
    const folder = join(work, 'entries')
    assert.deepEqual(await writeNatFolder(folder, entries), [
      join(folder, 'NAT00090.txt'),
      join(folder, 'NAT00130.txt'),
    ])
    assert.deepEqual(await readFile(join(folder, 'NAT00090.txt')), entries[0]!.bytes)
    const read = await readNatZip(natZipBytes(entries))
    assert.deepEqual(
      read.files.map((file) => file.file),
      ['NAT00090.txt', 'NAT00130.txt'],
    )
    assert.deepEqual(
      read.records.NAT00090.map((record) => record.values.disabilityTypeIdentifier),
      ['14'],
    )
    assert.deepEqual(
      read.problems.filter((problem) => problem.line > 0).map(({ file, line, value }) => ({ file, line, value })),
      [{ file: 'NAT00090.txt', line: 2, value: 'VIC' }],
    )
  })

  it('a character beyond ASCII but in Latin-1 round-trips and keeps its column', async () => {
    const folder = join(work, 'latin1')
    const client = {
      ...writeValuesOf(GOLDEN.NAT00085),
      clientFirstGivenName: 'Zoë',
      clientFamilyName: "O'Brien-Müller",
    }
    await writeNatFolder(folder, { NAT00085: [client] })
    const bytes = await readFile(join(folder, 'NAT00085.txt'))
    assert.equal(bytes.length, 557 + 2)
    const result = await readNatFolder(folder)
    assert.equal(result.records.NAT00085[0]!.values.clientFirstGivenName, 'Zoë')
    assert.equal(result.records.NAT00085[0]!.values.clientFamilyName, "O'Brien-Müller")
    assert.equal(result.records.NAT00085[0]!.values.clientIdentifier, 'S000123')
  })

  it('an empty list writes an empty file; a table not given is not written', async () => {
    const folder = join(work, 'empty')
    await writeNatFolder(folder, { NAT00130: [] })
    assert.deepEqual(await readdir(folder), ['NAT00130.txt'])
    assert.equal((await readFile(join(folder, 'NAT00130.txt'))).length, 0)
  })

  it('refuses values that do not fit, listing each with its file, record, field and value', () => {
    const good = writeValuesOf(GOLDEN.NAT00120)
    const error = writeErrorOf(() =>
      formatNatFile('NAT00120', [
        good,
        { ...good, clientIdentifier: 'S00012345678' },
        { ...good, scheduledHours: '12.5', activityEndDate: '2026-02-30' },
        { ...good, subjectIdentifier: undefined },
      ]),
    )
    assert.deepEqual(
      error.problems.map(({ file, line, field, value }) => ({ file, line, field, value })),
      [
        { file: 'NAT00120.txt', line: 2, field: 'clientIdentifier', value: 'S00012345678' },
        { file: 'NAT00120.txt', line: 3, field: 'activityEndDate', value: '2026-02-30' },
        { file: 'NAT00120.txt', line: 3, field: 'scheduledHours', value: '12.5' },
        { file: 'NAT00120.txt', line: 4, field: 'subjectIdentifier', value: undefined },
      ],
    )
    assert.match(error.problems[0]!.message, /Client identifier is 12 characters long; at most 10 fit/)
    assert.match(error.message, /4 value\(s\) cannot be written, the first in NAT00120.txt line 2/)
  })

  it('refuses a number too long for its field, a line break, a character beyond Latin-1 and an unknown field', () => {
    const good = writeValuesOf(GOLDEN.NAT00060)
    const error = writeErrorOf(() =>
      formatNatFile('NAT00060', [
        { ...good, nominalHours: '12345' },
        { ...good, subjectName: 'Two\r\nlines' },
        { ...good, subjectName: 'Safety ✓' },
        { ...good, nominalHour: '60' } as typeof good,
      ]),
    )
    assert.deepEqual(
      error.problems.map(({ line, field }) => [line, field]),
      [
        [1, 'nominalHours'],
        [2, 'subjectName'],
        [3, 'subjectName'],
        [4, 'nominalHour'],
      ],
    )
  })

  it('writes nothing when any file of a set cannot be written', async () => {
    const folder = join(work, 'refused')
    const set: NatFileSet = { NAT00090: [writeValuesOf(GOLDEN.NAT00090)], NAT00100: [{ clientIdentifier: 'S1' }] }
    await assert.rejects(writeNatFolder(folder, set), (error: unknown) => {
      assert.ok(error instanceof NatWriteError)
      assert.deepEqual(
        error.problems.map(({ file, field }) => [file, field]),
        [['NAT00100.txt', 'priorEducationalAchievementIdentifier']],
      )
      return true
    })
    await assert.rejects(readdir(folder), { code: 'ENOENT' })
  })
})
