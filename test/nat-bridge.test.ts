// The NAT bridge end to end, as an RTO with only NAT files uses it: the real `vetrs` CLI in its own
// processes against a real service on the run's database. A generated set imports, validates and
// submits in one command and exports back to the same records, field for field; importing it again
// replaces, never duplicates; a planted fault is reported at its NAT file, line and field in --json;
// a record the service's validation refuses is printed at the NAT line and field it came from.
// Five CLI processes in all: starting one is the costly part.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources (the CLI's
// bin does, with the vetrs-source condition).
import {
  codeTranslatorFrom,
  type CodeTranslator,
  generateNatFileSet,
  type MappedRecord,
  NAT_LAYOUTS,
  natToResources,
  natZipBytes,
  readNatFolder,
  writeNatFolder,
} from '../packages/avetmiss/src/index.ts'
import { type HeldRecord, Vetrs } from '../packages/client/src/index.ts'
import { newRto, type TestRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { startTestService, type TestService } from './support/index.ts'

const run = promisify(execFile)
const BIN = new URL('../packages/cli/bin/vetrs.js', import.meta.url).pathname
/** A fixed seed and a day in the past of every run, so the service's date rules (no final state or period in the future) pass. */
const GENERATED = { activities: 50, seed: 'nat-bridge', year: 2026, asOf: '2026-06-30' } as const

interface Ran {
  code: number
  stdout: string
  stderr: string
}

/** The records of a mapping by type and UID, without their origins: what the service holds of them. */
function recordsOf(records: readonly MappedRecord[]): Map<string, unknown> {
  return new Map(records.map(({ resourceType, uid, record }) => [`${resourceType} ${uid}`, record]))
}

function countsOf(records: readonly { resourceType: string }[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const { resourceType } of records) counts[resourceType] = (counts[resourceType] ?? 0) + 1
  return counts
}

describe('NAT bridge: vetrs nat import and export through a real service', () => {
  let t: TestService
  let rto: TestRto
  let rtoCode: string
  let codes: CodeTranslator
  let scratch: string
  let sdk: Vetrs
  const clean = () => join(scratch, 'clean')

  before(async () => {
    t = await startTestService()
    rtoCode = String(randomInt(10_000, 100_000))
    rto = await newRto(t, rtoCode)
    sdk = new Vetrs({ baseUrl: t.baseUrl, credentials: { clientId: rto.clientId, clientSecret: rto.clientSecret } })
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-nat-bridge-'))
    const referenceData = await readSeedReferenceData()
    codes = codeTranslatorFrom(referenceData)
    await writeNatFolder(clean(), generateNatFileSet({ ...GENERATED, rtoCode, referenceData }).entries)
  })
  after(async () => {
    await t.close()
    await rm(scratch, { recursive: true, force: true })
  })

  /** One `vetrs` process for the RTO, its credentials in the environment, its configuration file its own. */
  async function vetrs(...args: string[]): Promise<Ran> {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        env: {
          ...process.env,
          VETRS_CONFIG: join(scratch, 'config.json'),
          VETRS_URL: t.baseUrl,
          VETRS_CLIENT_ID: rto.clientId,
          VETRS_CLIENT_SECRET: rto.clientSecret,
        },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      })
      return { code: 0, stdout, stderr }
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string }
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
    }
  }

  const held = async (): Promise<HeldRecord[]> => (await sdk.heldDataset()).records

  it('import --submit, then export: the exported set maps to the same records, field for field, as the set imported', async () => {
    const imported = await vetrs('nat', 'import', clean(), '--jurisdiction', 'VIC', '--submit', '--json')
    assert.equal(imported.code, 0, imported.stderr + imported.stdout)
    const outcome = JSON.parse(imported.stdout)
    // The NAT checks may warn (a generated set lists subjects no activity of this size uses); nothing else is found.
    assert.deepEqual(
      outcome.findings.filter(
        (finding: { stage: string; level: string }) => finding.stage !== 'check' || finding.level !== 'Warning',
      ),
      [],
    )
    assert.equal(outcome.submitted.status, 'Submitted')

    const original = natToResources(await readNatFolder(clean()), { rtoCode, codes })
    assert.deepEqual(original.problems, [])
    assert.equal(outcome.submitted.numberOfRecordsSubmitted, original.records.length)
    // What the service holds is what the mapping made, record for record.
    const holding = await held()
    assert.deepEqual(
      new Map(holding.map((h) => [`${h.resourceType} ${h.resourceUID}`, h.record])),
      recordsOf(original.records),
    )

    const out = join(scratch, 'exported')
    const exported = await vetrs('nat', 'export', '--out', out, '--organisation', join(clean(), 'NAT00010.txt'))
    assert.equal(exported.code, 0, exported.stderr)
    assert.match(
      exported.stdout,
      new RegExp(`Wrote 11 NAT files to ${out} from ${original.records.length} held records`),
    )
    assert.doesNotMatch(exported.stderr, /NAT00010 not written/)

    const read = await readNatFolder(out)
    assert.deepEqual(read.problems, [])
    const again = natToResources(read, { rtoCode, codes })
    assert.deepEqual(again.problems, [])
    assert.deepEqual(recordsOf(again.records), recordsOf(original.records))
    assert.deepEqual(
      read.records.NAT00010.map((r) => r.values),
      (await readNatFolder(clean())).records.NAT00010.map((r) => r.values),
    )
  })

  it('a second import of the same set replaces the same records, never duplicates them', async () => {
    const before = countsOf(await held())
    const again = await vetrs('nat', 'import', clean(), '--jurisdiction', 'VIC', '--submit')
    assert.equal(again.code, 0, again.stderr + again.stdout)
    assert.match(again.stdout, /Submitted batch \S+: \d+ records are now held/)
    assert.deepEqual(countsOf(await held()), before)
    const [student] = await held()
    const state = await sdk.heldState(student!.resourceType, student!.resourceUID)
    assert.equal(state.numberOfVersions, 2)
  })

  it('--json names a planted fault at its NAT file, line and field, and the set is not submitted (exit 3)', async () => {
    const referenceData = await readSeedReferenceData()
    const faulty = generateNatFileSet({
      ...GENERATED,
      seed: 'nat-bridge-faults',
      rtoCode,
      referenceData,
      faults: [
        { kind: 'impossible-date', count: 1 },
        { kind: 'unknown-code', count: 1 },
      ],
    })
    const folder = join(scratch, 'faulty')
    await writeNatFolder(folder, faulty.entries)
    const csv = join(scratch, 'faulty.csv')
    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--submit', '--json', '--csv', csv)
    assert.equal(ran.code, 3, ran.stderr)
    const outcome = JSON.parse(ran.stdout)
    assert.equal(outcome.submitted, null)
    assert.equal(faulty.faults.length, 2)
    for (const fault of faulty.faults) {
      const found = outcome.findings.find(
        (f: { nat: { file: string; line: number; field?: string }[] }) =>
          f.nat[0]?.file === fault.file && f.nat[0]?.line === fault.line && f.nat[0]?.field === fault.field,
      )
      assert.ok(found, `${fault.kind} at ${fault.file} line ${fault.line} field ${fault.field} in ${ran.stdout}`)
      assert.equal(found.stage, fault.kind === 'impossible-date' ? 'read' : 'map')
      assert.equal(found.level, 'Error')
      assert.equal(found.value, fault.value)
    }
    const rows = (await readFile(csv, 'utf8')).trim().split('\n')
    assert.match(rows[0]!, /^stage,level,rule,file,fileId,line,field,fieldLabel,where,/)
    for (const fault of faulty.faults)
      assert.ok(rows.some((row) => row.includes(`,${fault.file},`) && row.includes(`,${fault.line},${fault.field},`)))
  })

  it('a set naming another training organisation is refused before anything is uploaded: both codes named, no batch, exit 3', async () => {
    const referenceData = await readSeedReferenceData()
    const other = rtoCode === '90009' ? '90008' : '90009'
    const folder = join(scratch, 'other-rto')
    await writeNatFolder(folder, generateNatFileSet({ ...GENERATED, rtoCode: other, referenceData }).entries)
    const batches = async () => {
      let count = 0
      for await (const _ of sdk.batches('VIC')) count++
      return count
    }
    const [beforeBatches, beforeHeld] = [await batches(), countsOf(await held())]

    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--submit')
    assert.equal(ran.code, 3, ran.stderr + ran.stdout)
    // This set has no completion (NAT00130); the service's test has one.
    for (const file of ['NAT00010', 'NAT00020', 'NAT00120'])
      assert.match(
        ran.stdout,
        new RegExp(
          `Error\\s+NAT organisation\\s+${file} line 1 field Training organisation identifier\\s+Training organisation identifier ${other} is not ${rtoCode}`,
        ),
      )
    assert.match(
      ran.stdout,
      new RegExp(`for training organisation ${other}, not for RTO ${rtoCode}.*Nothing was uploaded`),
    )
    assert.equal(await batches(), beforeBatches, 'no batch made')
    assert.deepEqual(countsOf(await held()), beforeHeld)

    const json = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--json', '--rto', rtoCode)
    assert.equal(json.code, 3, json.stderr)
    const outcome = JSON.parse(json.stdout)
    assert.equal(outcome.transactionBatchToken, null)
    assert.ok(
      outcome.findings.every((f: { stage: string; value: string }) => f.stage === 'organisation' && f.value === other),
    )
    assert.equal(await batches(), beforeBatches)

    const wrongRto = await vetrs('nat', 'import', clean(), '--jurisdiction', 'VIC', '--rto', other)
    assert.equal(wrongRto.code, 2, wrongRto.stderr)
    assert.match(wrongRto.stderr, new RegExp(`--rto ${other}, but you are logged in as RTO ${rtoCode}`))
  })

  it('a batch the import left without lines is submitted only when the dropped lines are acknowledged by number', async () => {
    const referenceData = await readSeedReferenceData()
    const faulty = generateNatFileSet({
      ...GENERATED,
      seed: 'nat-bridge-dropped',
      rtoCode,
      referenceData,
      faults: [{ kind: 'unknown-code', count: 1 }],
    })
    const folder = join(scratch, 'dropped')
    await writeNatFolder(folder, faulty.entries)
    const imported = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--json')
    assert.equal(imported.code, 3, imported.stderr)
    const token = JSON.parse(imported.stdout).transactionBatchToken
    const [fault] = faulty.faults

    const plain = await vetrs('submit', '--jurisdiction', 'VIC')
    assert.equal(plain.code, 3, plain.stdout + plain.stderr)
    assert.match(
      plain.stdout,
      new RegExp(`Not submitted: batch ${token} was made by \`vetrs nat import\`, which left out 1 NAT problem`),
    )
    assert.ok(plain.stdout.includes(`${fault!.file.replace('.txt', '')} line ${fault!.line}`), plain.stdout)
    assert.match(plain.stdout, /vetrs submit --acknowledge-dropped 1/)
    assert.equal((await sdk.batch('VIC', token)).status, 'NotSubmitted')
    const wrongCount = await vetrs('submit', '--jurisdiction', 'VIC', '--acknowledge-dropped', '2')
    assert.equal(wrongCount.code, 3, wrongCount.stdout)

    const acknowledged = await vetrs('submit', '--jurisdiction', 'VIC', '--acknowledge-dropped', '1')
    assert.equal(acknowledged.code, 0, acknowledged.stdout + acknowledged.stderr)
    assert.match(acknowledged.stdout, new RegExp(`Submitted batch ${token}`))
  })

  it("a batch the service's NAT import left without lines: `vetrs submit` passes the service's refusal on, and --acknowledge-dropped to it", async () => {
    const referenceData = await readSeedReferenceData()
    const faulty = generateNatFileSet({
      ...GENERATED,
      seed: 'nat-bridge-dropped-service',
      rtoCode,
      referenceData,
      faults: [{ kind: 'unknown-code', count: 1 }],
    })
    // Imported by the service (as the console does): the CLI keeps no notice of it; the service checks.
    const imported = await sdk.natImport('VIC', natZipBytes(faulty.entries))
    assert.equal(imported.natProblemCount, 1)
    const token = imported.transactionBatchToken

    const plain = await vetrs('submit', token, '--jurisdiction', 'VIC')
    assert.equal(plain.code, 3, plain.stdout + plain.stderr)
    assert.match(plain.stderr, /left out 1 NAT problem/)
    assert.match(plain.stderr, /vetrs submit --acknowledge-dropped 1/)
    assert.match(plain.stderr, /reason: nat-lines-dropped/)
    assert.equal((await sdk.batch('VIC', token)).status, 'NotSubmitted')

    const acknowledged = await vetrs('submit', token, '--jurisdiction', 'VIC', '--acknowledge-dropped', '1')
    assert.equal(acknowledged.code, 0, acknowledged.stdout + acknowledged.stderr)
    assert.match(acknowledged.stdout, new RegExp(`Submitted batch ${token}`))
  })

  it('an import whose upload the service refuses leaves no batch behind, and the current batch is what it was', async () => {
    const folder = join(scratch, 'refused')
    await cp(clean(), folder, { recursive: true })
    // A control character in a family name (U+0085, written as UTF-8): the reader and the mapping carry
    // it, the service's string rules refuse it.
    const contacts = (await readFile(join(folder, 'NAT00085.txt'), 'latin1')).split('\r\n')
    const family = NAT_LAYOUTS.NAT00085.fields.find((field) => field.name === 'clientFamilyName')!
    contacts[0] = `${contacts[0]!.slice(0, family.start)}\u0085${contacts[0]!.slice(family.start + 1)}`
    await writeFile(join(folder, 'NAT00085.txt'), contacts.join('\r\n'), 'utf8')
    const config = JSON.parse(await readFile(join(scratch, 'config.json'), 'utf8'))
    const batches = async () => {
      let count = 0
      for await (const _ of sdk.batches('VIC')) count++
      return count
    }
    const before = await batches()

    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--json')
    assert.equal(ran.code, 1, ran.stdout + ran.stderr)
    const outcome = JSON.parse(ran.stdout)
    assert.equal(outcome.transactionBatchToken, null)
    assert.ok(outcome.findings.some((f: { stage: string }) => f.stage === 'upload'))
    assert.equal(await batches(), before, 'the empty batch was discarded')
    const after = JSON.parse(await readFile(join(scratch, 'config.json'), 'utf8'))
    assert.deepEqual(after.currentBatch, config.currentBatch)
  })

  it("a record the service's validation refuses (a USI's check character) is printed at its NAT file, line and field", async () => {
    const folder = join(scratch, 'bad-usi')
    const set = await readNatFolder(clean())
    const client = set.records.NAT00080.find((record) => record.values.uniqueStudentIdentifier)!
    const usi = NAT_LAYOUTS.NAT00080.fields.find((field) => field.name === 'uniqueStudentIdentifier')!
    // The reader and the mapping take any ten characters; only validation (BRTS01200) checks the last.
    const lines = (await readFile(join(clean(), 'NAT00080.txt'), 'latin1')).split('\r\n')
    const line = lines[client.line - 1]!
    const at = usi.start - 1 + usi.length - 1
    lines[client.line - 1] = `${line.slice(0, at)}${line[at] === 'B' ? 'C' : 'B'}${line.slice(at + 1)}`
    await cp(clean(), folder, { recursive: true })
    await writeFile(join(folder, 'NAT00080.txt'), lines.join('\r\n'), 'latin1')

    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC')
    assert.equal(ran.code, 3, ran.stderr + ran.stdout)
    const row = ran.stdout.split('\n').find((text) => text.includes('BRTS01200'))
    assert.ok(row, ran.stdout)
    assert.match(row, /^Error\s+BRTS01200\s+NAT00080 line \d+ field Unique student identifier\s+/)
    assert.ok(row.includes(`NAT00080 line ${client.line} field Unique student identifier`), row)
    assert.match(ran.stdout, /Corrective actions:\n {2}BRTS01200: /)
    assert.match(ran.stdout, /Not submitted: correct the NAT lines named/)
  })
})
