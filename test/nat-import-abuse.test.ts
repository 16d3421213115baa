// NAT imports that are abuse or accident (issue 31 item 8): content the reader cannot decode (NUL
// bytes, UTF-16, control characters or path traversal in a zip entry's name) is 400 naming the file and
// line, never 500; and the work of one import is bounded (docs/decisions.md, "NAT imports: bounded,
// fair jobs with progress").
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { zipSync } from 'fflate'
import { generateNatFileSet, type NatEntry } from '../packages/avetmiss/src/index.ts'
import { newRto, type TestRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { call, startTestService, V1, type TestService } from './support/index.ts'

const GENERATED = { activities: 10, seed: 'nat-abuse', year: 2026, asOf: '2026-06-30' } as const
const ZIP = 'application/zip'

const zipOf = (entries: NatEntry[], rename: Record<string, string> = {}) =>
  zipSync(Object.fromEntries(entries.map((entry) => [rename[entry.name] ?? entry.name, entry.bytes])))

describe('NAT import: undecodable content and bounded work', () => {
  let t: TestService
  let rto: TestRto
  let token: string
  let entries: NatEntry[]

  before(async () => {
    t = await startTestService({ env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } })
    rto = await newRto(t, String(randomInt(10_000, 100_000)))
    token = await t.token(rto.clientId, rto.clientSecret)
    const referenceData = await readSeedReferenceData()
    entries = generateNatFileSet({ ...GENERATED, rtoCode: rto.rto, referenceData }).entries
  })
  after(() => t.close())

  const importZip = (zip: Uint8Array) =>
    call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, { token, body: zip as BodyInit, headers: { 'content-type': ZIP } })
  const batchCount = async () =>
    (await call(t.baseUrl, 'GET', `${V1}/transaction-batch?pageSize=100`, { token })).json.numberOfResults as number
  const replaced = (name: string, bytes: (original: Uint8Array) => Uint8Array) =>
    entries.map((entry) => (entry.name === name ? { name, bytes: bytes(entry.bytes) } : entry))
  const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1')

  it('NUL bytes, UTF-16 and unsafe entry names are 400 nat-set-unreadable naming the file and line, and store nothing', async () => {
    const before = await batchCount()
    const withNulOnLine3 = (bytes: Uint8Array) => {
      const lines = text(bytes).split('\r\n')
      lines[2] = `${lines[2]!.slice(0, 5)}\0${lines[2]!.slice(6)}`
      return Buffer.from(lines.join('\r\n'), 'latin1')
    }
    const utf16le = (bytes: Uint8Array, bom: boolean) =>
      Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text(bytes), 'utf16le')])
    const utf16be = (bytes: Uint8Array) => {
      const le = Buffer.from(text(bytes), 'utf16le')
      return Buffer.concat([Buffer.from([0xfe, 0xff]), le.swap16()])
    }
    const cases: [string, Uint8Array, RegExp][] = [
      ['NUL byte in a line', zipOf(replaced('NAT00080.txt', withNulOnLine3)), /NAT00080\.txt line 3\b.*NUL/],
      [
        'UTF-16 LE with BOM',
        zipOf(replaced('NAT00080.txt', (b) => utf16le(b, true))),
        /NAT00080\.txt line 1\b.*UTF-16/,
      ],
      ['UTF-16 BE with BOM', zipOf(replaced('NAT00120.txt', utf16be)), /NAT00120\.txt line 1\b.*UTF-16/],
      [
        'UTF-16 without BOM',
        zipOf(replaced('NAT00120.txt', (b) => utf16le(b, false))),
        /NAT00120\.txt line 1\b.*UTF-16/,
      ],
      [
        'NUL in an entry name',
        zipOf(entries, { 'NAT00080.txt': 'NAT00080\0.txt' }),
        /entry name.*NUL|control character/,
      ],
      [
        'control character in an entry name',
        zipOf(entries, { 'NAT00080.txt': 'NAT\u000100080.txt' }),
        /control character/,
      ],
      ['path traversal in an entry name', zipOf(entries, { 'NAT00080.txt': '../../NAT00080.txt' }), /\.\./],
      ['absolute entry name', zipOf(entries, { 'NAT00080.txt': '/etc/NAT00080.txt' }), /absolute|\//],
    ]
    for (const [what, zip, detail] of cases) {
      const response = await importZip(zip)
      assert.equal(response.status, 400, `${what}: ${response.text}`)
      assert.equal(response.json.type, '/problems/nat-set-unreadable', what)
      assert.match(response.json.detail, detail, what)
      assert.match(response.json.detail, /Nothing was stored/, what)
    }
    assert.equal(await batchCount(), before, 'no batch left behind')
  })

  it('a line bomb (a small zip of millions of short NAT00080 lines) stops reading the file after 1,000 lines that cannot be records, lists a bounded number of problems and counts every line', async () => {
    const lines = 3_000_000
    const bomb = Buffer.alloc(lines * 2, '1\n')
    const zip = zipOf(replaced('NAT00080.txt', () => bomb))
    assert.ok(zip.length < 100_000, `the zip is small: ${zip.length} bytes`)
    const response = await importZip(zip)
    assert.equal(response.status, 201, response.text)
    const result = response.json
    const stopped = result.natProblems.filter((problem: { message: string }) =>
      problem.message.startsWith('Reading of'),
    )
    assert.deepEqual(
      stopped.map((problem: { nat: { text: string }[]; message: string }) => [problem.nat[0]!.text, problem.message]),
      [
        [
          'NAT00080 line 1001',
          `Reading of NAT00080.txt stopped at line 1001: 1000 of its lines could not be records, so its other ${lines - 1000} lines were not read (each counted as a problem)`,
        ],
      ],
    )
    assert.ok(result.natProblems.length <= 1001, `problems listed: ${result.natProblems.length}`)
    // Every line counted: the 1,000 read (several problems each) and the others (one each), and the
    // activities whose client could not be read.
    assert.ok(result.natProblemCount >= lines, `counted: ${result.natProblemCount}`)
    assert.ok(result.natProblemCount < lines + 50_000, `counted: ${result.natProblemCount}`)
    const again = await call(
      t.baseUrl,
      'GET',
      `${V1}/VIC/transaction-batch/${result.transactionBatchToken}/nat-import`,
      {
        token,
      },
    )
    assert.equal(again.json.natProblemCount, result.natProblemCount, 'the count is stored, not the problems')
    assert.equal(again.json.natProblems.length, result.natProblems.length)
  })
})
