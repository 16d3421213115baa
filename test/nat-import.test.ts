// The NAT import in the service (issue 19, an extension): POST .../{jurisdiction}/nat-import with a zip
// of NAT files makes a new batch of the mapped records, answers the NAT problems at their file, line and
// field, and keeps the zip, so GET .../nat-import/findings tells the batch's failed validation results
// as NAT file, line and field. What is refused stores nothing; another RTO sees none of it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { zipSync } from 'fflate'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources.
import {
  codeTranslatorFrom,
  type CodeTranslator,
  generateNatFileSet,
  NAT_LAYOUTS,
  type NatEntry,
  natToResources,
  natZipBytes,
  readNatEntries,
} from '../packages/avetmiss/src/index.ts'
import { ServiceError, Vetrs } from '../packages/client/src/index.ts'
import { newRto, type TestRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { resourceDefinitions } from '../src/modules/resources/index.ts'
import { call, startTestService, V1, type TestService } from './support/index.ts'
import { withBadUsi } from './support/nat-faults.ts'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const PUBLISHED_LAYOUTS = join(
  import.meta.dirname,
  '..',
  'packages',
  'avetmiss',
  'test',
  'fixtures',
  'published-layouts',
)

/** The hand-built national set with the named cases' files in place of its own (packages/avetmiss/test/fixtures). */
function publishedLayoutCase(...cases: string[]): NatEntry[] {
  const files = new Map<string, Uint8Array>()
  for (const folder of ['national', ...cases])
    for (const name of readdirSync(join(PUBLISHED_LAYOUTS, folder)))
      files.set(name, readFileSync(join(PUBLISHED_LAYOUTS, folder, name)))
  return [...files].map(([name, bytes]) => ({ name, bytes }))
}

/** A fixed seed and a day in the past of every run, so the service's date rules pass. */
const GENERATED = { activities: 60, seed: 'nat-import', year: 2026, asOf: '2026-06-30' } as const
const ZIP = 'application/zip'

type ReferenceData = Awaited<ReturnType<typeof readSeedReferenceData>>

const countsOf = (records: readonly { resourceType: string }[]) => {
  const counts = Object.fromEntries(resourceDefinitions.map((d) => [d.resourceType, 0])) as Record<string, number>
  for (const { resourceType } of records) counts[resourceType]!++
  return counts
}

/** What the mapping makes of the entries, by "type uid": what the batch must hold, and nothing else. */
function expectedOf(entries: NatEntry[], rtoCode: string, codes: CodeTranslator) {
  const mapped = natToResources(readNatEntries(entries), { rtoCode, codes })
  return {
    records: mapped.records,
    byKey: new Map(mapped.records.map((r) => [`${r.resourceType} ${r.uid}`, r.record])),
  }
}

/** The NAT00080 entry with one client's USI check character changed: only validation (BRTS01200) sees it. */
/** The entries zipped as they are (stored), with the last byte of the last file's data flipped: its CRC-32 no longer matches. */
function damaged(entries: NatEntry[]): Uint8Array {
  const zip = zipSync(Object.fromEntries(entries.map((entry) => [entry.name, entry.bytes])), { level: 0 })
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const centralDirectory = view.getUint32(zip.length - 22 + 16, true)
  zip[centralDirectory - 1]! ^= 1
  return zip
}

describe('NAT import in the service (POST .../nat-import, application/zip)', () => {
  let t: TestService
  let referenceData: ReferenceData
  let codes: CodeTranslator
  let a: { rto: TestRto; token: string }
  let b: { rto: TestRto; token: string }

  const rtoWithToken = async () => {
    const rto = await newRto(t, String(randomInt(10_000, 100_000)))
    return { rto, token: await t.token(rto.clientId, rto.clientSecret) }
  }
  const generate = (rtoCode: string, options: Partial<Parameters<typeof generateNatFileSet>[0]> = {}) =>
    generateNatFileSet({ ...GENERATED, rtoCode, referenceData, ...options })
  const importZip = (
    body: Uint8Array | string,
    {
      token = a.token,
      jurisdiction = 'VIC',
      type = ZIP,
    }: { token?: string; jurisdiction?: string; type?: string } = {},
  ) =>
    call(t.baseUrl, 'POST', `${V1}/${jurisdiction}/nat-import`, {
      token,
      body: body as BodyInit,
      headers: { 'content-type': type },
    })
  const batchPath = (token: string, rest = '', jurisdiction = 'VIC') =>
    `${V1}/${jurisdiction}/transaction-batch/${token}${rest}`
  const batchCount = async (token: string) => {
    const list = await call(t.baseUrl, 'GET', `${V1}/transaction-batch?pageSize=100`, { token })
    assert.equal(list.status, 200, list.text)
    return list.json.numberOfResults as number
  }
  /** Every record of the batch, by "type uid", read through the ordinary list endpoints. */
  const stored = async (batch: string, token = a.token) => {
    const records = new Map<string, unknown>()
    for (const { segment, resourceType, uidField } of resourceDefinitions) {
      for (let page = 1; ; page++) {
        const list = await call(t.baseUrl, 'GET', batchPath(batch, `/${segment}?pageSize=500&pageNumber=${page}`), {
          token,
        })
        assert.equal(list.status, 200, list.text)
        for (const record of list.json.results) records.set(`${resourceType} ${record[uidField]}`, record)
        if (page >= list.json.numberOfPages) break
      }
    }
    return records
  }
  const validated = async (batch: string) => {
    const requested = await call(t.baseUrl, 'POST', batchPath(batch, '/validate'), { token: a.token })
    assert.equal(requested.status, 201, requested.text)
    for (const started = Date.now(); Date.now() - started < 60_000; ) {
      const status = await call(t.baseUrl, 'GET', batchPath(batch, '/validate'), { token: a.token })
      if (status.json?.validationStatus === 'Validated') return status.json
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`batch ${batch} not Validated in 60 s`)
  }

  before(async () => {
    t = await startTestService()
    referenceData = await readSeedReferenceData()
    codes = codeTranslatorFrom(referenceData)
    a = await rtoWithToken()
    b = await rtoWithToken()
  })
  after(() => t.close())

  it('a generated zip becomes a new batch holding exactly the mapped records, with their counts and no NAT problem', async () => {
    const set = generate(a.rto.rto)
    const expected = expectedOf(set.entries, a.rto.rto, codes)
    const response = await importZip(natZipBytes(set.entries))
    assert.equal(response.status, 201, response.text)
    const result = response.json
    assert.equal(result.jurisdiction, 'VIC')
    assert.equal(result.rtoCode, a.rto.rto)
    assert.equal(result.natProblemCount, 0)
    assert.deepEqual(result.natProblems, [])
    assert.equal(result.recordCount, expected.records.length)
    assert.deepEqual(result.recordsByType, countsOf(expected.records))
    assert.deepEqual(result.files.map((f: { fileId: string }) => f.fileId).sort(), Object.keys(set.lineCounts).sort())
    assert.deepEqual(result.ignoredFiles, [])

    const batch = await call(t.baseUrl, 'GET', batchPath(result.transactionBatchToken), { token: a.token })
    assert.equal(batch.status, 200, batch.text)
    assert.equal(batch.json.status, 'NotSubmitted')
    assert.equal(batch.json.totalRecords, expected.records.length)
    assert.deepEqual(await stored(result.transactionBatchToken), expected.byKey, 'the mapped records, field for field')

    // The import is kept with the batch, and answers again as it did.
    const again = await call(t.baseUrl, 'GET', batchPath(result.transactionBatchToken, '/nat-import'), {
      token: a.token,
    })
    assert.equal(again.status, 200, again.text)
    assert.deepEqual(again.json, result)

    // The same files again: a second batch with the same records under the same UIDs.
    const second = await importZip(natZipBytes(set.entries))
    assert.equal(second.status, 201, second.text)
    assert.notEqual(second.json.transactionBatchToken, result.transactionBatchToken)
    assert.deepEqual(await stored(second.json.transactionBatchToken), expected.byKey)
  })

  it('planted reader and mapping faults are answered at their NAT file, line, field and value; the batch holds exactly the rest', async () => {
    const set = generate(a.rto.rto, {
      seed: 'nat-import-faults',
      faults: [
        { kind: 'impossible-date', count: 1 },
        { kind: 'unknown-code', count: 1 },
      ],
    })
    assert.equal(set.faults.length, 2)
    const response = await importZip(natZipBytes(set.entries))
    assert.equal(response.status, 201, response.text)
    const { natProblems, natProblemCount, transactionBatchToken } = response.json
    assert.equal(natProblemCount, 2)
    assert.deepEqual(
      natProblems.map(
        (p: { stage: string; nat: { file: string; line: number; field?: string }[]; value?: string }) => ({
          stage: p.stage,
          file: p.nat[0]?.file,
          line: p.nat[0]?.line,
          field: p.nat[0]?.field,
          value: p.value,
        }),
      ),
      // The reader's problems, then the mapping's, each in file and line order.
      [...set.faults]
        .sort((x, y) => Number(x.kind !== 'impossible-date') - Number(y.kind !== 'impossible-date'))
        .map((fault) => ({
          stage: fault.kind === 'impossible-date' ? 'read' : 'map',
          file: fault.file,
          line: fault.line,
          field: fault.field,
          value: fault.value,
        })),
    )
    const read = natProblems.find((p: { stage: string }) => p.stage === 'read')
    assert.match(read.nat[0].text, /^NAT\d{5}A? line \d+ field [A-Z]/)
    assert.equal(read.nat[0].fileId, read.nat[0].file.replace(/\.txt$/, ''))
    assert.ok(read.nat[0].fieldLabel)

    // The unreadable line's record is not there; the unknown code's record is, without that field.
    const expected = expectedOf(set.entries, a.rto.rto, codes)
    assert.deepEqual(await stored(transactionBatchToken), expected.byKey)
    // ...which is not what the same set without its faults gives (faults leave the data around them as it is).
    const clean = expectedOf(generate(a.rto.rto, { seed: 'nat-import-faults' }).entries, a.rto.rto, codes)
    assert.notDeepEqual(expected.byKey, clean.byKey)
  })

  it("a mapped record the upload's structural check refuses is left out, answered at its NAT line and field", async () => {
    // A control character in a family name: the reader and the mapping carry any text; the upload's
    // string rules refuse it (docs/decisions.md, "Characters refused in text").
    const set = generate(a.rto.rto, { seed: 'nat-import-refused' })
    const field = NAT_LAYOUTS.NAT00085.fields.find((f) => f.name === 'clientFamilyName')!
    const entries = set.entries.map((entry) => {
      if (entry.name !== 'NAT00085.txt') return entry
      const bytes = Uint8Array.from(entry.bytes)
      bytes[field.start] = 0x07 // the family name's second character, on line 1
      return { name: entry.name, bytes }
    })
    const client = readNatEntries(entries).records.NAT00085[0]!.values.clientIdentifier
    const response = await importZip(natZipBytes(entries))
    assert.equal(response.status, 201, response.text)
    const { natProblems, natProblemCount, transactionBatchToken } = response.json
    assert.equal(natProblemCount, 1, response.text)
    const [problem] = natProblems
    assert.equal(problem.stage, 'upload')
    assert.equal(problem.resourceType, 'Student')
    assert.equal(problem.accessPath, '$.familyName')
    assert.match(problem.message, /^Client family name "[^"]*"/)
    assert.match(
      problem.correctiveAction,
      /^In the SMS, correct Client family name \(NAT00085 line 1 field Client family name\)/,
    )
    assert.deepEqual(problem.nat, [
      {
        file: 'NAT00085.txt',
        fileId: 'NAT00085',
        line: 1,
        field: 'clientFamilyName',
        fieldLabel: 'Client family name',
        text: 'NAT00085 line 1 field Client family name',
      },
    ])
    // Everything but that student is stored, as mapped.
    const expected = expectedOf(entries, a.rto.rto, codes)
    const student = expected.records.find((r) => r.resourceType === 'Student' && r.record.clientIdentifier === client)!
    assert.equal(problem.resourceUID, student.uid)
    expected.byKey.delete(`Student ${student.uid}`)
    assert.deepEqual(await stored(transactionBatchToken), expected.byKey)
    assert.equal(response.json.recordCount, expected.byKey.size)
  })

  it("findings: the batch's failed validation results, each at the NAT file, line and field it came from", async () => {
    const { entries, line } = withBadUsi(generate(a.rto.rto, { seed: 'nat-import-usi' }).entries)
    const response = await importZip(natZipBytes(entries))
    assert.equal(response.status, 201, response.text)
    const batch = response.json.transactionBatchToken
    const findingsPath = batchPath(batch, '/nat-import/findings?pageSize=500')

    const early = await call(t.baseUrl, 'GET', findingsPath, { token: a.token })
    assert.equal(early.status, 404, early.text)
    assert.equal(early.json.type, '/problems/no-validation-run')

    await validated(batch)
    const failed = await call(t.baseUrl, 'GET', batchPath(batch, '/failed-validation-results?pageSize=500'), {
      token: a.token,
    })
    const findings = await call(t.baseUrl, 'GET', findingsPath, { token: a.token })
    assert.equal(findings.status, 200, findings.text)
    // The same results, in the same order, each with its NAT places.
    assert.deepEqual(
      findings.json.results.map(
        ({
          nat: _nat,
          natRecord: _record,
          natValue: _value,
          natMessage: _message,
          natCorrectiveAction: _action,
          ...result
        }: Record<string, unknown>) => result,
      ),
      failed.json.results,
    )
    assert.equal(findings.json.numberOfResults, failed.json.numberOfResults)
    const usi = findings.json.results.find((r: { errorNumber: string }) => r.errorNumber === 'BRTS01200')
    assert.ok(usi, findings.text)
    assert.deepEqual(usi.nat, [
      {
        file: 'NAT00080.txt',
        fileId: 'NAT00080',
        line,
        field: 'uniqueStudentIdentifier',
        fieldLabel: 'Unique student identifier',
        text: `NAT00080 line ${line} field Unique student identifier`,
      },
    ])
    for (const result of findings.json.results)
      if (result.dataSource === 'Transaction_batch') assert.ok(result.nat.length > 0, JSON.stringify(result))
    // In the files' terms: the client by its identifier, the field by its published name, no UID or JSON path.
    const client = readNatEntries(entries).records.NAT00080.find((row) => row.line === line)!.values.clientIdentifier
    assert.equal(usi.natRecord, `client ${client}`)
    assert.match(usi.natValue, /^[0-9A-Z]{10}$/)
    assert.ok(usi.message.includes(usi.natValue), usi.message)
    assert.match(usi.natMessage, /^Unique student identifier \S+ does not end in a valid check character/)
    for (const result of findings.json.results)
      assert.doesNotMatch(
        `${result.natMessage} ${result.natCorrectiveAction}`,
        /[0-9a-f]{8}-[0-9a-f]{4}-|\$\./,
        JSON.stringify(result),
      )

    // A batch not made by a NAT import has no NAT lines to name.
    const plain = await call(t.baseUrl, 'POST', `${V1}/VIC/transaction-batch`, { token: a.token })
    const none = await call(t.baseUrl, 'GET', batchPath(plain.json.transactionBatchToken, '/nat-import/findings'), {
      token: a.token,
    })
    assert.equal(none.status, 404, none.text)
    assert.equal(none.json.type, '/problems/not-found')
    assert.match(none.json.detail, /not made by a NAT import/)
  })

  it('hand-built files of the published layouts: each file says its layout, a 130-character NAT00030 gives its classifications, and every problem names its record and what to change in the SMS', async () => {
    const rtoCode = a.rto.rto
    // The fixtures are written for RTO 90001; the organisation identifier columns (1-10) become this RTO's.
    const ownRto = (entry: NatEntry): NatEntry =>
      /^NAT00(010|020|120|130)/.test(entry.name)
        ? {
            name: entry.name,
            bytes: Buffer.from(
              Buffer.from(entry.bytes)
                .toString('latin1')
                .replace(/^90001 {5}/gm, rtoCode.padEnd(10, ' ')),
              'latin1',
            ),
          }
        : entry
    const response = await importZip(natZipBytes(publishedLayoutCase('one-run', 'nat00030-130').map(ownRto)))
    assert.equal(response.status, 201, response.text)
    const { files, natProblems } = response.json
    assert.match(
      files.find((file: { file: string }) => file.file === 'NAT00030.txt').layout,
      /^AVETMISS NAT00030, 130 characters/,
    )
    assert.equal(
      files.find((file: { file: string }) => file.file === 'NAT00120.txt').layout,
      'AVETMISS 8.0 NAT00120, 158 characters (national)',
    )
    // Every problem of NAT00120 line 1 in one run, and the follow-on names the unreadable NAT00080 line.
    assert.deepEqual(
      natProblems
        .filter((problem: { nat: { fileId: string; line: number }[] }) => problem.nat[0]?.fileId === 'NAT00120')
        .map((problem: { nat: { line: number; field: string }[]; value: string }) => [
          problem.nat[0]!.line,
          problem.nat[0]!.field,
          problem.value,
        ]),
      [
        [1, 'deliveryModeIdentifier', '303'],
        [1, 'predominantDeliveryMode', 'A'],
        [1, 'schoolTypeIdentifier', 'AB'],
        [2, 'clientIdentifier', 'C000077778'],
      ],
    )
    for (const problem of natProblems) {
      assert.match(problem.record, /^client C00007777\d/, JSON.stringify(problem))
      assert.match(problem.correctiveAction, /SMS|line \d+ of NAT/, JSON.stringify(problem))
    }
    const programs = await call(
      t.baseUrl,
      'GET',
      batchPath(response.json.transactionBatchToken, '/program?pageSize=10'),
      { token: a.token },
    )
    assert.equal(programs.status, 200, programs.text)
    assert.equal(programs.json.results[0].programFieldOfEducation, '0803')
  })

  it('the NAT checks run on the zip: each finding at its file, line and field, with its level; the records are stored', async () => {
    const rtoCode = a.rto.rto
    const ownRto = (entry: NatEntry): NatEntry =>
      /^NAT00(010|020|120|130)/.test(entry.name)
        ? {
            name: entry.name,
            bytes: Buffer.from(
              Buffer.from(entry.bytes)
                .toString('latin1')
                .replace(/^90001 {5}/gm, rtoCode.padEnd(10, ' ')),
              'latin1',
            ),
          }
        : entry
    const response = await importZip(natZipBytes(publishedLayoutCase('checks-broken').map(ownRto)))
    assert.equal(response.status, 201, response.text)
    const { natChecks, natCheckCount, natProblemCount } = response.json
    assert.equal(natProblemCount, 0, response.text)
    assert.equal(natCheckCount, natChecks.length)
    const age = natChecks.find((c: { check: string }) => c.check === 'implausible-age')
    assert.equal(age.level, 'Error')
    assert.equal(age.nat[0].text, 'NAT00080 line 3 field Date of birth')
    assert.equal(age.record, 'client C000077779')
    assert.match(age.correctiveAction, /^In the SMS, correct the client's date of birth/)
    const disability = natChecks.find((c: { check: string }) => c.check === 'disability-without-flag')
    assert.equal(disability.nat[0].text, 'NAT00090 line 1 field Client identifier')
    // Stored as the files give them: the student with a disability type and flag N is in the batch.
    const again = await call(t.baseUrl, 'GET', batchPath(response.json.transactionBatchToken, '/nat-import'), {
      token: a.token,
    })
    assert.deepEqual(again.json.natChecks, natChecks)
  })

  it('the SDK imports a zip (natImport), reads the import back (natImportOf) and its findings (natImportFindings), as the HTTP calls answer them', async () => {
    const vetrs = new Vetrs({
      baseUrl: t.baseUrl,
      credentials: { clientId: a.rto.clientId, clientSecret: a.rto.clientSecret },
    })
    const { entries, line } = withBadUsi(generate(a.rto.rto, { seed: 'nat-import-sdk' }).entries)
    // Queued as a job and polled: each status told, the last one Completed with this answer.
    const seen: { status: string; result?: unknown }[] = []
    const result = await vetrs.natImport('VIC', natZipBytes(entries), {
      pollIntervalMs: 50,
      onProgress: (status) => seen.push(status),
    })
    assert.equal(seen.at(-1)?.status, 'Completed')
    assert.deepEqual(seen.at(-1)?.result, result)
    assert.equal(result.rtoCode, a.rto.rto)
    assert.equal(result.natProblemCount, 0)
    assert.equal(result.recordCount, expectedOf(entries, a.rto.rto, codes).records.length)
    const batch = result.transactionBatchToken
    assert.deepEqual(await vetrs.natImportOf('VIC', batch), result)
    await validated(batch)
    const findings = []
    for await (const finding of vetrs.natImportFindings('VIC', batch)) findings.push(finding)
    const http = await call(t.baseUrl, 'GET', batchPath(batch, '/nat-import/findings?pageSize=500'), { token: a.token })
    assert.deepEqual(findings, http.json.results)
    const usi = findings.find((f) => f.errorNumber === 'BRTS01200')
    assert.deepEqual(
      usi?.nat.map((n) => [n.file, n.line, n.field]),
      [['NAT00080.txt', line, 'uniqueStudentIdentifier']],
    )
    // A body that is not a zip: the service's problem, as a ServiceError; no batch made.
    const before = await batchCount(a.token)
    await assert.rejects(vetrs.natImport('VIC', new TextEncoder().encode('not a zip')), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.equal(error.status, 400)
      assert.equal(error.problem?.type, '/problems/nat-set-unreadable')
      return true
    })
    // Refused by the job (no record in the files): the problem that ended it, as a ServiceError.
    const onlyNat00010 = zipSync({ 'NAT00010.txt': entries.find((e) => e.name === 'NAT00010.txt')!.bytes })
    await assert.rejects(vetrs.natImport('VIC', onlyNat00010, { pollIntervalMs: 50 }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.equal(error.status, 400)
      assert.equal(error.problem?.type, '/problems/nat-set-unreadable')
      assert.match(error.problem?.detail ?? '', /gave no record/)
      return true
    })
    assert.equal(await batchCount(a.token), before)
  })

  it('a body that is not a zip of NAT files is a problem, and nothing is stored', async () => {
    const before = await batchCount(a.token)
    const set = generate(a.rto.rto)
    const zip = natZipBytes(set.entries)

    const json = await importZip('{}', { type: 'application/json' })
    assert.equal(json.status, 415, json.text)
    assert.equal(json.json.type, '/problems/unsupported-media-type')

    for (const [what, body] of [
      ['not a zip', 'NAT00120 is a text file, not a zip'],
      ['empty', new Uint8Array(0)],
      ['no NAT file in it', zipSync({ 'readme.txt': Buffer.from('hello') })],
      ['damaged', damaged(set.entries)],
      ['no record in it', zipSync({ 'NAT00010.txt': set.entries.find((e) => e.name === 'NAT00010.txt')!.bytes })],
    ] as const) {
      const response = await importZip(body)
      assert.equal(response.status, 400, `${what}: ${response.text}`)
      assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(response.json.type, '/problems/nat-set-unreadable', what)
      assert.match(response.json.detail, /Nothing was stored/, what)
    }
    // Also accepted as application/x-zip-compressed (a .zip in a browser on Windows).
    const windows = await importZip(zip, { type: 'application/x-zip-compressed' })
    assert.equal(windows.status, 201, windows.text)
    assert.equal(await batchCount(a.token), before + 1, 'only the good import made a batch')
  })

  it('limits: NAT files over LIMIT_NAT_FILES_BYTES are 413 nat-set-too-large, a zip over LIMIT_NAT_ZIP_BYTES 413 on the wire', async () => {
    const small = await startTestService({ env: { LIMIT_NAT_ZIP_BYTES: '20000', LIMIT_NAT_FILES_BYTES: '10000' } })
    try {
      const rto = await newRto(small, String(randomInt(10_000, 100_000)))
      const token = await small.token(rto.clientId, rto.clientSecret)
      const zip = natZipBytes(generate(rto.rto).entries)
      assert.ok(zip.length < 20_000)
      const post = (body: Uint8Array) =>
        call(small.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
          token,
          body: body as BodyInit,
          headers: { 'content-type': ZIP },
        })
      const tooMuch = await post(zip)
      assert.equal(tooMuch.status, 413, tooMuch.text)
      assert.equal(tooMuch.json.type, '/problems/nat-set-too-large')
      assert.match(tooMuch.json.detail, /more than 10000 bytes uncompressed/)
      const wire = await post(new Uint8Array(20_001))
      assert.equal(wire.status, 413)
      assert.equal(wire.text, '')
      const list = await call(small.baseUrl, 'GET', `${V1}/transaction-batch`, { token })
      assert.equal(list.json.numberOfResults, 0)
    } finally {
      await small.close()
    }
  })

  it("scope vet:report, and another RTO's imports are its own", async () => {
    const set = generate(a.rto.rto, { seed: 'nat-import-isolation' })
    const zip = natZipBytes(set.entries)
    const imported = await importZip(zip)
    assert.equal(imported.status, 201, imported.text)
    const batch = imported.json.transactionBatchToken

    assert.equal((await importZip(zip, { token: '' })).status, 401)
    const readOnly = await t.token(a.rto.clientId, a.rto.clientSecret, 'vet:read')
    const refused = await importZip(zip, { token: readOnly })
    assert.equal(refused.status, 403, refused.text)
    assert.equal(refused.json.type, '/problems/insufficient-scope')

    // B cannot see A's import, its batch or its findings; nor under another jurisdiction can A.
    for (const path of [batchPath(batch, '/nat-import'), batchPath(batch, '/nat-import/findings'), batchPath(batch)]) {
      const seen = await call(t.baseUrl, 'GET', path, { token: b.token })
      assert.equal(seen.status, 404, `${path}: ${seen.text}`)
    }
    const elsewhere = await call(t.baseUrl, 'GET', batchPath(batch, '/nat-import', 'NSW'), { token: a.token })
    assert.equal(elsewhere.status, 404, elsewhere.text)

    // B importing A's files: refused before anything is stored, naming both codes.
    const before = await stored(batch)
    const theirs = await importZip(zip, { token: b.token })
    assert.equal(theirs.status, 400, theirs.text)
    assert.equal(theirs.json.type, '/problems/nat-organisation-mismatch')
    assert.equal(await batchCount(b.token), 0)
    assert.deepEqual(await stored(batch), before)
  })

  it('files naming another training organisation (NAT00010, NAT00020, NAT00120, NAT00130) are refused, naming both codes, and nothing is stored', async () => {
    const set = generate('90009', { seed: 'nat-import-other-rto' })
    const before = await batchCount(a.token)
    const refused = await importZip(natZipBytes(set.entries))
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.json.type, '/problems/nat-organisation-mismatch')
    assert.match(refused.json.detail, /training organisation 90009, not for RTO \d+/)
    assert.ok(refused.json.detail.includes(`RTO ${a.rto.rto}`), refused.json.detail)
    for (const file of ['NAT00010 line 1', 'NAT00020 line 1', 'NAT00120 line 1', 'NAT00130 line 1'])
      assert.ok(refused.json.detail.includes(file), `${file}: ${refused.json.detail}`)
    assert.match(refused.json.detail, /Nothing was uploaded/)
    assert.equal(await batchCount(a.token), before, 'no batch left behind')

    // One stray line is enough: the rest of the set the RTO's own.
    const own = generate(a.rto.rto, { seed: 'nat-import-other-rto' })
    const entries = own.entries.map((entry) => {
      if (entry.name !== 'NAT00130.txt') return entry
      const text = Buffer.from(entry.bytes).toString('latin1')
      const width = NAT_LAYOUTS.NAT00130.fields[0]!.length
      return { ...entry, bytes: Buffer.from(`${'90009'.padEnd(width)}${text.slice(width)}`, 'latin1') }
    })
    const stray = await importZip(natZipBytes(entries))
    assert.equal(stray.status, 400, stray.text)
    assert.match(stray.json.detail, /NAT00130 line 1 \(90009\)/)
    assert.equal(await batchCount(a.token), before)
  })
})
