// The mapping in bounded chunks (natToResourceChunks, issue 31 item 9): cut by client, each chunk's
// records and problems together are what natToResources gives for the whole set, every shared record
// (location, program, subject, offering) and every problem once; no chunk holds more than its share
// of the client files' lines; and the client files' lines leave the set as the chunks are mapped.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  CLIENT_FILES,
  CompressedRecords,
  compactOrigin,
  generateNatFileSet,
  locate,
  type MappedRecord,
  NAT_FAULT_KINDS,
  type NatProblem,
  type NatResourceChunk,
  natTermsOf,
  natToResourceChunks,
  natToResources,
  originIndexOf,
  readNatEntries,
  uidsIn,
} from '../src/index.ts'
import { uidHash } from '../src/mapping/compressed-records.ts'
import { seedCodes, seedDatasets } from './support/reference-data.ts'

const RTO = '90001'

function generated(faults = false) {
  return generateNatFileSet({
    activities: 400,
    seed: 'chunked mapping',
    rtoCode: RTO,
    referenceData: seedDatasets,
    ...(faults ? { faults: NAT_FAULT_KINDS.map((kind) => ({ kind, count: 2 })) } : {}),
  })
}

function inChunks(chunkLines: number, faults = false) {
  const read = readNatEntries(generated(faults).entries)
  const chunks: NatResourceChunk[] = []
  const generator = natToResourceChunks(read, { rtoCode: RTO, codes: seedCodes, chunkLines })
  const clientLinesLeft: number[] = []
  for (;;) {
    const next = generator.next()
    if (next.done) return { read, chunks, problems: next.value, clientLinesLeft }
    chunks.push(next.value)
    clientLinesLeft.push(CLIENT_FILES.reduce((sum, fileId) => sum + read.records[fileId].length, 0))
  }
}

const keyOf = (record: MappedRecord) => `${record.resourceType} ${record.uid}`
const bodiesByKey = (records: readonly MappedRecord[]) =>
  new Map(records.map((record) => [keyOf(record), record.record] as const))
const placeOf = (problem: NatProblem) => `${problem.file}:${problem.line}:${problem.field ?? ''}:${problem.message}`

describe('natToResourceChunks: the mapping in bounded chunks', () => {
  for (const faults of [false, true]) {
    it(`gives the records and problems of the whole set's mapping, each once (${faults ? 'every planted fault' : 'a clean set'})`, () => {
      const whole = natToResources(readNatEntries(generated(faults).entries), { rtoCode: RTO, codes: seedCodes })
      const { chunks, problems } = inChunks(60, faults)
      assert.ok(chunks.length > 3, `${chunks.length} chunks`)
      const records = chunks.flatMap((chunk) => chunk.records)
      assert.equal(new Set(records.map(keyOf)).size, records.length, 'no record given twice')
      assert.deepEqual(bodiesByKey(records), bodiesByKey(whole.records))
      assert.deepEqual(problems.map(placeOf), whole.problems.map(placeOf))
      if (faults) assert.ok(problems.length > 0)
    })
  }

  it('bounds each chunk to its share of the client files lines, whole clients, and lets the lines go', () => {
    const { chunks, clientLinesLeft } = inChunks(60)
    const clientsOf = (chunk: NatResourceChunk) =>
      new Set(chunk.records.filter((record) => record.resourceType === 'Student').map((record) => record.uid))
    for (const chunk of chunks.slice(0, -1)) assert.ok(chunk.lines >= 60 && chunk.lines < 100, `${chunk.lines} lines`)
    // One client's lines are in one chunk: no student is in two.
    const seen = new Set<string>()
    for (const chunk of chunks)
      for (const uid of clientsOf(chunk)) {
        assert.ok(!seen.has(uid), uid)
        seen.add(uid)
      }
    // The set keeps none of the client files' lines once mapping began: each chunk holds its own.
    assert.deepEqual(new Set(clientLinesLeft), new Set([0]))
  })

  it('maps a set without client lines as one chunk of the small files', () => {
    const read = readNatEntries(generated().entries)
    for (const fileId of CLIENT_FILES) read.records[fileId] = []
    const chunks = [...natToResourceChunks(read, { rtoCode: RTO, codes: seedCodes })]
    assert.equal(chunks.length, 1)
    assert.ok(chunks[0]!.records.some((record) => record.resourceType === 'Program'))
  })
})

describe('compactOrigin', () => {
  it('locates every field where the full origin does, without the lines values', () => {
    const { records } = natToResources(readNatEntries(generated().entries), { rtoCode: RTO, codes: seedCodes })
    const full = originIndexOf(records)
    const compact = originIndexOf(records.map((record) => ({ ...record, origin: compactOrigin(record.origin) })))
    for (const record of records.slice(0, 2000)) {
      assert.deepEqual(locate(compact, record.resourceType, record.uid), locate(full, record.resourceType, record.uid))
      for (const path of Object.keys(record.origin.fields))
        assert.deepEqual(
          locate(compact, record.resourceType, record.uid, path),
          locate(full, record.resourceType, record.uid, path),
        )
      for (const line of compact.get(`${record.resourceType} ${record.uid.toLowerCase()}`)!.lines)
        assert.deepEqual(Object.keys(line), ['fileId', 'file', 'line'])
    }
  })
})

describe('CompressedRecords', () => {
  it('gives back each record in order, and the origins, identities and bodies of those asked for', () => {
    const { records } = natToResources(readNatEntries(generated().entries), { rtoCode: RTO, codes: seedCodes })
    const kept = new CompressedRecords()
    for (let i = 0; i < records.length; i += 250) kept.add(records.slice(i, i + 250))
    assert.equal(kept.count, records.length)
    const json = Buffer.byteLength(JSON.stringify(records.map((r) => r.record)))
    assert.ok(kept.bytes * 3 < json, `${kept.bytes} bytes compressed, the bodies alone ${json} as JSON`)
    const back = []
    for (let index = 0; kept.chunk(index); index++) back.push(...kept.chunk(index)!)
    assert.deepEqual(
      back,
      records.map(({ resourceType, uid, record }) => ({ resourceType, uid, record })),
    )
    assert.equal(kept.chunkCount, Math.ceil(records.length / 250), 'one compressed chunk for each chunk added')
    const full = originIndexOf(records)
    const terms = natTermsOf(records)
    const asked = records.filter((_, index) => index % 37 === 0)
    const indexes = kept.indexesOf([...asked.map((record) => record.uid.toUpperCase()), 'not-a-uid'])
    assert.equal(indexes.bodies.size, asked.length)
    for (const record of asked) {
      assert.deepEqual(indexes.bodies.get(record.uid), record.record)
      assert.equal(indexes.terms.get(record.uid), terms.get(record.uid))
      for (const path of [undefined, ...Object.keys(record.origin.fields)])
        assert.deepEqual(
          locate(indexes.origins, record.resourceType, record.uid, path),
          locate(full, record.resourceType, record.uid, path),
        )
    }
  })

  it('answers by UID when two UIDs share a key of the index, and as the later chunk holds a UID given twice', () => {
    // Two UIDs whose 30-bit keys meet (found by trying: about 2^15 tries), kept in different chunks.
    const seen = new Map<number, string>()
    let pair: [string, string] | undefined
    for (let i = 0; !pair; i++) {
      const uid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`
      const other = seen.get(uidHash(uid))
      if (other !== undefined) pair = [other, uid]
      else seen.set(uidHash(uid), uid)
    }
    const [first, second] = pair
    const kept = new CompressedRecords()
    const record = (uid: string, name: string) => ({ resourceType: 'Student', uid, record: { uid, name } })
    kept.add([record(first, 'first')])
    kept.add([record('11111111-0000-4000-8000-000000000000', 'between')])
    kept.add([record(second, 'second')])
    kept.add([record(first, 'first, given again')])
    const { bodies } = kept.indexesOf([first.toUpperCase(), second])
    assert.deepEqual(bodies.get(first), { uid: first, name: 'first, given again' })
    assert.deepEqual(bodies.get(second), { uid: second, name: 'second' })
    assert.equal(kept.indexesOf(['22222222-0000-4000-8000-000000000000']).bodies.size, 0)
  })

  it('finds the UIDs a text names', () => {
    const uid = '0b0e1a5c-3f2d-4c1e-9a7b-1234567890ab'
    assert.deepEqual(uidsIn(`$.programUID ${uid.toUpperCase()} is not held`), [uid.toUpperCase()])
    assert.deepEqual(uidsIn('no record named'), [])
  })
})
