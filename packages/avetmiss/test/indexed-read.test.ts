// The set read for an import bounded by a chunk (indexNatZip, indexNatFolder; issue 31 item 9): each
// file read on its own, the client files' lines kept as positions and read again chunk by chunk. What
// it gives must be what the whole read gives: the same problems in the same order, the same layouts,
// unreadable lines and organisation identifiers, the same chunks mapped to the same records, and the
// NAT checks run a chunk of clients at a time the same findings as checkNatSet on the whole set.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  CLIENT_FILES,
  checkNatSet,
  generateNatFileSet,
  indexNatFolder,
  indexNatZip,
  mapClientChunks,
  NAT_CHECK_FAULT_KINDS,
  NAT_FAULT_KINDS,
  type NatEntry,
  type NatIndexedSet,
  type NatReadResult,
  type NatResourceChunk,
  NatSetChecker,
  natToResourceChunks,
  natZipBytes,
  otherOrganisations,
  readNatEntries,
  writeNatFolder,
} from '../src/index.ts'
import { seedCodes, seedDatasets } from './support/reference-data.ts'

const RTO = '90001'
const AS_OF = '2026-06-30'

function entriesWith(faults: boolean): NatEntry[] {
  const set = generateNatFileSet({
    activities: 400,
    seed: 'indexed read',
    rtoCode: RTO,
    referenceData: seedDatasets,
    ...(faults ? { faults: [...NAT_FAULT_KINDS, ...NAT_CHECK_FAULT_KINDS].map((kind) => ({ kind, count: 2 })) } : {}),
  })
  // A file no NAT reader reads, listed as ignored by both.
  return [...set.entries, { name: 'readme.txt', bytes: new TextEncoder().encode('exported by the SMS\n') }]
}

function drain<T, R>(generator: Generator<T, R, void>): { items: T[]; done: R } {
  const items: T[] = []
  for (;;) {
    const next = generator.next()
    if (next.done) return { items, done: next.value }
    items.push(next.value)
  }
}

/** What an importer gets from the whole read (readNatEntries), as the CLI used it before. */
function whole(entries: NatEntry[], chunkLines: number) {
  const read = readNatEntries(entries)
  const checks = checkNatSet(read, { asOf: AS_OF })
  const others = otherOrganisations(read.records, '90002')
  const summary = summaryOf(read)
  const mapped = drain(natToResourceChunks(read, { rtoCode: RTO, codes: seedCodes, chunkLines }))
  return { summary, checks, others, mapped }
}

/** The same from an indexed read, the checks run beside the mapping a chunk at a time. */
function indexed(read: NatIndexedSet, chunkLines: number) {
  const checker = new NatSetChecker(read, { asOf: AS_OF })
  const others = read.organisations.others('90002')
  const summary = summaryOf(read)
  function* checked() {
    for (const chunk of read.clientChunks(chunkLines)) {
      checker.addClients(chunk)
      yield chunk
    }
  }
  const mapped = drain(mapClientChunks(checked(), read, { rtoCode: RTO, codes: seedCodes }))
  return { summary, checks: checker.findings(), others, mapped }
}

function summaryOf(read: NatReadResult) {
  const { records, problems, problemCount, problemsTruncated, files, ignoredFiles, unreadable } = read
  const rest = { problems, problemCount, problemsTruncated, files, ignoredFiles, unreadable }
  const small = Object.fromEntries(
    Object.entries(records).filter(([fileId]) => !(CLIENT_FILES as readonly string[]).includes(fileId)),
  )
  return { ...rest, small }
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value))
const chunkView = (chunks: NatResourceChunk[]) => chunks.map(({ index, lines, records }) => ({ index, lines, records }))

describe('indexNatZip and indexNatFolder: the whole read, a chunk of clients at a time', () => {
  for (const faults of [false, true])
    for (const chunkLines of [60, 1_000_000]) {
      it(`gives the whole read's problems, checks, organisations and mapped chunks (${faults ? 'every planted fault' : 'a clean set'}, ${chunkLines} lines a chunk)`, async () => {
        const entries = entriesWith(faults)
        const expected = whole(entries, chunkLines)
        const read = await indexNatZip(natZipBytes(entries))
        const clientLines = CLIENT_FILES.reduce((sum, fileId) => sum + read.records[fileId].length, 0)
        assert.equal(clientLines, 0, 'no client-file record is held after the read')
        const actual = indexed(read, chunkLines)
        assert.deepEqual(plain(actual.summary), plain(expected.summary))
        assert.deepEqual(actual.checks, expected.checks)
        assert.deepEqual(actual.others, expected.others)
        assert.deepEqual(chunkView(actual.mapped.items), chunkView(expected.mapped.items))
        assert.deepEqual(actual.mapped.done, expected.mapped.done)
        if (chunkLines === 60) assert.ok(actual.mapped.items.length > 3, `${actual.mapped.items.length} chunks`)
        if (faults) {
          assert.ok(expected.summary.problems.length > 0)
          assert.ok(expected.checks.length > 0)
          assert.ok(expected.mapped.done.length > 0)
        }
        const readCount = Object.values(readNatEntries(entries).records).reduce((sum, rows) => sum + rows.length, 0)
        assert.equal(read.recordCount, readCount)
      })
    }

  it('reads a folder as the zip', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'vetrs-indexed-'))
    try {
      const entries = entriesWith(true)
      await writeNatFolder(folder, entries)
      const expected = whole(entries, 60)
      const actual = indexed(await indexNatFolder(folder), 60)
      assert.deepEqual(plain(actual.summary), plain(expected.summary))
      assert.deepEqual(actual.checks, expected.checks)
      assert.deepEqual(chunkView(actual.mapped.items), chunkView(expected.mapped.items))
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it('gives one empty chunk for a set without client lines, and reads each chunk once', async () => {
    const entries = entriesWith(false).filter((entry) => !/NAT00(080|085|090|100|120|130)/.test(entry.name))
    const read = await indexNatZip(natZipBytes(entries))
    const chunks = [...read.clientChunks(60)]
    assert.equal(chunks.length, 1)
    assert.equal(
      CLIENT_FILES.reduce((sum, fileId) => sum + chunks[0]![fileId].length, 0),
      0,
    )
  })
})
