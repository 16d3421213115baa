// Continuing students (issue 31, item 1): an RTO that reported one period's NAT files reports the next
// period's, which carry only that period's activity, with one command and no blocking failure. The held
// lifecycle history of each enrolment is kept and extended (no BRTS01450 "leaves out state(s) already
// submitted"), a program enrolment keeps the commencement it was first reported with, a withdrawn
// student who comes back and a deferred one who returns are Commenced again, and the export of the
// held dataset imports again to the same held state. Through the CLI (`vetrs nat import`, real
// processes) and through the service's nat-import, each for an RTO of its own.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import {
  natFileEntries,
  naturalKeysOf,
  natZipBytes,
  type NaturalKeys,
  writeNatFolder,
} from '../packages/avetmiss/src/index.ts'
import { type HeldRecord, type ResourceRecord, Vetrs } from '../packages/client/src/index.ts'
import { newRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { startTestService, type TestService } from './support/index.ts'
import { natPeriods, type NatPeriods, SECOND_PERIOD_START } from './support/nat-periods.ts'

const run = promisify(execFile)
const BIN = new URL('../packages/cli/bin/vetrs.js', import.meta.url).pathname

interface Lifecycle {
  studentStatus: string
  studentActivityDate: string
  studentStatusReason?: string
}
type Body = Record<string, unknown> & { lifecycle?: Lifecycle[] }

const statesOf = (record: Body | undefined) =>
  (record?.lifecycle ?? []).map((state) => `${state.studentStatus} ${state.studentActivityDate}`)

describe('NAT imports of two periods: continuing students keep and extend their held history', () => {
  let t: TestService
  let scratch: string
  let referenceData: Awaited<ReturnType<typeof readSeedReferenceData>>

  before(async () => {
    t = await startTestService()
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-nat-continuing-'))
    referenceData = await readSeedReferenceData()
  })
  after(async () => {
    await t.close()
    await rm(scratch, { recursive: true, force: true })
  })

  /** A new RTO, its SDK client, the two periods' files for it, and its natural keys. */
  async function rtoWithPeriods() {
    const rtoCode = String(randomInt(10_000, 100_000))
    const rto = await newRto(t, rtoCode)
    const sdk = new Vetrs({
      baseUrl: t.baseUrl,
      credentials: { clientId: rto.clientId, clientSecret: rto.clientSecret },
    })
    return { rtoCode, rto, sdk, periods: natPeriods({ rtoCode, referenceData }), keys: naturalKeysOf(rtoCode) }
  }

  const heldByKey = async (sdk: Vetrs) =>
    new Map(
      (await sdk.heldDataset()).records.map((held: HeldRecord) => [
        `${held.resourceType} ${held.resourceUID}`,
        held.record as unknown as Body,
      ]),
    )

  /** Between the periods, the SMS defers the not-yet-started program enrolment through the API. */
  async function defer(sdk: Vetrs, keys: NaturalKeys, periods: NatPeriods) {
    const uid = keys.programEnrolment(periods.deferred.client, periods.deferred.program)
    const held = await heldByKey(sdk)
    const enrolment = held.get(`ProgramEnrolment ${uid}`)!
    assert.deepEqual(statesOf(enrolment), [`Registered ${periods.deferred.firstStart}`])
    const deferredRecord = {
      ...enrolment,
      lifecycle: [
        ...enrolment.lifecycle!,
        { studentStatus: 'Deferred', studentActivityDate: '2026-07-01', studentStatusReason: 'Deferral_Pre' },
      ],
    }
    const outcome = await sdk.submit([deferredRecord as unknown as ResourceRecord], { jurisdiction: 'VIC' })
    assert.ok(outcome.submitted, JSON.stringify(outcome.blocking))
  }

  /** What the second period must leave held: the first period's history kept, the second's added. */
  function assertHistory(before: Map<string, Body>, after: Map<string, Body>, keys: NaturalKeys, periods: NatPeriods) {
    // Every first-period enrolment is still held.
    for (const [key] of before) assert.ok(after.has(key), `${key} still held`)

    const continuing = keys.programEnrolment(periods.continuing.client, periods.continuing.program)
    const was = before.get(`ProgramEnrolment ${continuing}`)!
    const now = after.get(`ProgramEnrolment ${continuing}`)!
    assert.equal(now.commencementDate, was.commencementDate, 'the first commencement is kept')
    assert.equal(now.commencingProgram, was.commencingProgram, "the first line's commencing program is kept")
    assert.equal(now.fundingSourceNational, was.fundingSourceNational)
    assert.deepEqual(statesOf(now), statesOf(was), 'still Commenced from the first period, nothing repeated')
    assert.equal((now.programCompletion as { dateProgramCompleted: string }).dateProgramCompleted, '2026-10-30')

    const returning = after.get(
      `ProgramEnrolment ${keys.programEnrolment(periods.returning.client, periods.returning.program)}`,
    )
    const returningWas = before.get(
      `ProgramEnrolment ${keys.programEnrolment(periods.returning.client, periods.returning.program)}`,
    )
    assert.deepEqual(
      statesOf(returningWas).map((s) => s.split(' ')[0]),
      ['Commenced', 'Cancelled'],
    )
    assert.deepEqual(statesOf(returning), [...statesOf(returningWas), `Commenced ${SECOND_PERIOD_START}`])

    const deferred = after.get(
      `ProgramEnrolment ${keys.programEnrolment(periods.deferred.client, periods.deferred.program)}`,
    )
    assert.deepEqual(statesOf(deferred), [
      `Registered ${periods.deferred.firstStart}`,
      'Deferred 2026-07-01',
      'Commenced 2026-08-10',
    ])
    assert.equal(deferred!.commencementDate, periods.deferred.firstStart)

    const s = periods.started
    const started = after.get(
      `SubjectEnrolment ${keys.subjectEnrolment({
        deliveryLocationIdentifier: s.deliveryLocationIdentifier!,
        clientIdentifier: s.clientIdentifier!,
        subjectIdentifier: s.subjectIdentifier!,
        programIdentifier: '',
        activityStartDate: s.activityStartDate!,
      })}`,
    )
    assert.deepEqual(statesOf(started), [`Registered ${s.activityStartDate}`, `Commenced ${s.activityStartDate}`])
  }

  it('vetrs nat import: period 1 then period 2 submit with no blocking failure; export of the result imports to the same held state', async () => {
    const { rto, sdk, periods, keys } = await rtoWithPeriods()
    const config = join(scratch, `${rto.clientId}.json`)
    const vetrs = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
          env: {
            ...process.env,
            VETRS_CONFIG: config,
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
    const folder = (name: string) => join(scratch, `${rto.clientId}-${name}`)
    await writeNatFolder(folder('first'), natFileEntries(periods.first))
    await writeNatFolder(folder('second'), natFileEntries(periods.second))

    const first = await vetrs('nat', 'import', folder('first'), '--jurisdiction', 'VIC', '--submit')
    assert.equal(first.code, 0, first.stdout + first.stderr)
    await defer(sdk, keys, periods)
    const before = await heldByKey(sdk)

    const second = await vetrs('nat', 'import', folder('second'), '--jurisdiction', 'VIC', '--submit', '--json')
    assert.equal(second.code, 0, second.stdout + second.stderr)
    const outcome = JSON.parse(second.stdout)
    assert.ok(outcome.submitted, 'submitted')
    assert.deepEqual(
      outcome.findings.filter((f: { level: string }) => f.level === 'Error'),
      [],
    )
    assert.ok(outcome.carriedForward >= 4, `carried forward ${outcome.carriedForward}`)
    const afterSecond = await heldByKey(sdk)
    assertHistory(before, afterSecond, keys, periods)

    // The held dataset exported and imported again: the same held state, record for record.
    const exported = folder('exported')
    const ran = await vetrs('nat', 'export', '--out', exported, '--organisation', join(folder('first'), 'NAT00010.txt'))
    assert.equal(ran.code, 0, ran.stderr)
    const again = await vetrs('nat', 'import', exported, '--jurisdiction', 'VIC', '--submit')
    assert.equal(again.code, 0, again.stdout + again.stderr)
    assert.deepEqual(await heldByKey(sdk), afterSecond)
  })

  it('POST .../nat-import: period 2 after period 1 validates with no blocking failure and submits, the history kept', async () => {
    const { sdk, periods, keys } = await rtoWithPeriods()
    const importAndSubmit = async (files: typeof periods.first) => {
      const imported = await sdk.natImport('VIC', natZipBytes(natFileEntries(files)))
      assert.equal(imported.natProblemCount, 0, JSON.stringify(imported.natProblems))
      const validated = await sdk.validate('VIC', imported.transactionBatchToken)
      assert.deepEqual(
        validated.blocking.flatMap((group) => group.results.map((r) => `${r.errorNumber} ${r.message}`)),
        [],
      )
      await sdk.submitBatch('VIC', imported.transactionBatchToken)
      await sdk.awaitReconciliation('VIC', imported.transactionBatchToken)
      return imported.carriedForward ?? 0
    }
    await importAndSubmit(periods.first)
    await defer(sdk, keys, periods)
    const before = await heldByKey(sdk)
    const carried = await importAndSubmit(periods.second)
    assert.ok(carried >= 4, `carried forward ${carried}`)
    assertHistory(before, await heldByKey(sdk), keys, periods)
  })
})
