// The SDK's standard workflows end to end against a real service (the run's database): submit,
// fix and resubmit into the same batch, void with orphans, reconcile, assess and declare, and
// reference data synchronisation with the file store.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  ConflictReason,
  FileReferenceStore,
  NetworkError,
  ServiceError,
  WorkflowError,
  collect,
  type ProgressEvent,
  type ResourceRecord,
} from '../src/index.ts'
import {
  newRto,
  recordsOf as nineRecords,
  sdkFor,
  startTestService,
  unitRecord,
  type TestService,
} from './support/service.ts'
import { loadRelease } from '../../../src/modules/reference-data/index.ts'
import { parseReleaseFile } from '../../../src/modules/reference-data/release-file.ts'

const recordsOf = async () => {
  const w = await unitRecord()
  return { w, records: nineRecords(w) }
}

describe('SDK workflows', () => {
  let t: TestService
  let scratch: string
  before(async () => {
    t = await startTestService()
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-sdk-'))
  })
  after(async () => {
    await t.close()
    await rm(scratch, { recursive: true, force: true })
  })

  it('submit(records): one call creates a batch, uploads, validates, and submits a clean record set, reporting progress', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const { w, records } = await recordsOf()
    const events: ProgressEvent[] = []
    const outcome = await sdk.submit(records, { jurisdiction: 'NSW', onProgress: (e) => events.push(e) })
    assert.deepEqual(
      [outcome.blocking, outcome.submitted?.status, outcome.submitted?.numberOfRecordsSubmitted],
      [[], 'Submitted', 9],
    )
    assert.deepEqual(events.filter((e) => e.phase === 'upload').at(-1), { phase: 'upload', done: 9, total: 9 })
    assert.ok(events.some((e) => e.phase === 'validate' && e.status === 'Validated'))
    assert.equal((await sdk.heldState('Student', w.student.studentUID)).stateInSubmission, 'In submission')
  })

  it('per-resource methods, typed from the OpenAPI types: upload, get, list, delete and heldState of each resource, no casts', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const w = await unitRecord()
    const { transactionBatchToken: batch } = await sdk.createBatch('NSW')
    assert.equal((await sdk.students.upload('NSW', batch, w.student)).transactionBatchToken, batch)
    await sdk.deliveryLocations.upload('NSW', batch, w.location)
    await sdk.programs.upload('NSW', batch, w.program)
    await sdk.programOfferings.upload('NSW', batch, w.programOffering)
    await sdk.programEnrolments.upload('NSW', batch, w.programEnrolment)
    await sdk.subjects.upload('NSW', batch, w.subject)
    await sdk.subjectOfferings.upload('NSW', batch, w.subjectOffering)
    await sdk.subjectEnrolments.upload('NSW', batch, w.subjectEnrolment)
    await sdk.subjectEnrolments.upload('NSW', batch, w.subjectEnrolmentInProgram)
    // @ts-expect-error a Program is not a Student: the compiler refuses it
    await sdk.students.upload('NSW', batch, w.program).catch(() => {})
    const student = await sdk.students.get('NSW', batch, w.student.studentUID)
    assert.equal(student.familyName, w.student.familyName)
    const enrolments = await collect(sdk.subjectEnrolments.list('NSW', batch))
    assert.deepEqual(
      enrolments.map((e) => e.subjectEnrolmentUID).sort(),
      [w.subjectEnrolment.subjectEnrolmentUID, w.subjectEnrolmentInProgram.subjectEnrolmentUID].sort(),
    )
    await sdk.subjectEnrolments.delete('NSW', batch, w.subjectEnrolmentInProgram.subjectEnrolmentUID)
    assert.equal((await collect(sdk.subjectEnrolments.list('NSW', batch))).length, 1)
    assert.equal((await sdk.batch('NSW', batch)).totalRecords, 8)
    assert.equal((await sdk.programs.heldState(w.program.programUID)).stateInSubmission, 'Not found in submission')
    const refused = await sdk.submitBatch('NSW', batch).catch((error: unknown) => error)
    assert.ok(refused instanceof ServiceError)
    assert.equal(refused.reason, ConflictReason.ValidationNotRequested)
    // @ts-expect-error reason is a ConflictReason: comparing it with a misspelt one does not compile
    assert.equal(refused.reason === 'validation-not-requsted', false)
  })

  it('submit(records): blocking results come back grouped by validationGroupingId and nothing is submitted; fixed records resubmit into the same batch', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const { w, records } = await recordsOf()
    const broken: ResourceRecord[] = records.map((r) =>
      r === w.student ? { ...w.student, surveyAvailability: 'Available', emailAddressPrimary: undefined } : r,
    )
    const refused = await sdk.submit(broken, { jurisdiction: 'NSW' })
    assert.equal(refused.submitted, null)
    assert.ok(refused.blocking.length > 0, 'a blocking group')
    for (const group of refused.blocking)
      assert.ok(
        group.results.every((r) => r.validationGroupingId === group.groupingId && r.validationMessageLevel === 'Error'),
      )
    assert.equal((await sdk.batch('NSW', refused.transactionBatchToken)).status, 'NotSubmitted')
    const fixed = await sdk.submit([w.student], {
      jurisdiction: 'NSW',
      transactionBatchToken: refused.transactionBatchToken,
    })
    assert.equal(fixed.transactionBatchToken, refused.transactionBatchToken)
    assert.equal(fixed.submitted?.status, 'Submitted')
    assert.deepEqual(await collect(sdk.batches('NSW')).then((batches) => batches.length), 1, 'one batch, re-used')
  })

  it('voidRecords: voids a held record with its dependents as orphans, and confirms they are Voided in submission; a record not held is refused before anything is uploaded', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const { w, records } = await recordsOf()
    await sdk.submit(records, { jurisdiction: 'NSW' })
    const outcome = await sdk.voidRecords({ records: [w.subjectEnrolment] }, { jurisdiction: 'NSW' })
    assert.deepEqual(outcome.blocking, [])
    assert.deepEqual(
      outcome.states.map((s) => s.stateInSubmission),
      ['Voided in submission'],
    )
    const program = await sdk.voidRecords(
      { records: [w.programEnrolment], orphans: [w.subjectEnrolmentInProgram] },
      { jurisdiction: 'NSW' },
    )
    assert.deepEqual(
      program.states.map((s) => [s.resourceType, s.stateInSubmission]),
      [
        ['ProgramEnrolment', 'Voided in submission'],
        ['SubjectEnrolment', 'Voided in submission'],
      ],
    )
    const stranger = { ...w.student, studentUID: randomUUID() }
    await assert.rejects(
      sdk.voidRecords({ records: [stranger] }, { jurisdiction: 'NSW' }),
      (error: unknown) => error instanceof WorkflowError && /Not found in submission/.test(error.message),
    )
  })

  it('voidRecords: a void that would orphan a dependent comes back with the blocking results and is not submitted', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const { w, records } = await recordsOf()
    await sdk.submit(records, { jurisdiction: 'NSW' })
    const outcome = await sdk.voidRecords({ records: [w.programEnrolment] }, { jurisdiction: 'NSW' })
    assert.equal(outcome.submitted, null)
    assert.ok(
      outcome.blocking.some((g) =>
        g.results.some(
          (r) =>
            r.resourceUID === w.programEnrolment.programEnrolmentUID ||
            r.resourceUID === w.subjectEnrolmentInProgram.subjectEnrolmentUID,
        ),
      ),
    )
  })

  it('reconcile: matched, version differs, not held, and held only, across uid-match and every page of search-by-period', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t), { limits: { pageSize: 1, uidsPerRequest: 2 } })
    const { w, records } = await recordsOf()
    await sdk.submit(records, { jurisdiction: 'NSW' })
    const outcome = await sdk.reconcile({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202604',
      records: [
        {
          resourceUID: w.subjectEnrolment.subjectEnrolmentUID,
          changeTrackingIdentifier: w.subjectEnrolment.changeTrackingIdentifier,
        },
        { resourceUID: randomUUID() },
      ],
    })
    assert.deepEqual(
      outcome.matched.map((m) => m.resourceUID),
      [w.subjectEnrolment.subjectEnrolmentUID],
    )
    assert.equal(outcome.notHeld.length, 1)
    assert.deepEqual(
      outcome.heldOnly.map((h) => h.resourceUID),
      [w.subjectEnrolmentInProgram.subjectEnrolmentUID],
    )
    const stale = await sdk.reconcile({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202604',
      records: [{ resourceUID: w.subjectEnrolment.subjectEnrolmentUID, changeTrackingIdentifier: 'an-older-version' }],
    })
    assert.equal(stale.versionDiffers.length, 1)
  })

  it('assessAndDeclare: assesses the period, reads every outcome, and declares when nothing blocks', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    await sdk.submit((await recordsOf()).records, { jurisdiction: 'NSW' })
    const events: ProgressEvent[] = []
    const outcome = await sdk.assessAndDeclare(
      {
        jurisdiction: 'NSW',
        reportingPeriod: 202604,
        RTOUserName: 'Alex Citizen',
        RTOUserEmailAddress: 'alex@example.edu.au',
      },
      { onProgress: (e) => events.push(e) },
    )
    assert.equal(outcome.assessment.assessmentStatus, 'Validated')
    assert.match(
      outcome.declaration?.message ?? '',
      /^Declaration saved for reporting period 202604 and jurisdiction NSW\./,
    )
    assert.ok(events.some((e) => e.phase === 'declare'))
    const rows = await collect(sdk.declarations({ reportingPeriodNumber: ['202604'], jurisdiction: 'NSW' }))
    assert.equal(rows[0]?.declaration?.isCurrent, true)
  })

  it('assessAndDeclare: blocking outcomes stop it before declaring, with the outcomes grouped by AssessmentGroupingId', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    // Two student records with one USI: DQTS10050, the blocking (Error) assessment rule.
    const records = [...(await recordsOf()).records, ...(await recordsOf()).records]
    assert.equal((await sdk.submit(records, { jurisdiction: 'NSW' })).submitted?.status, 'Submitted')
    const outcome = await sdk.assessAndDeclare({
      jurisdiction: 'NSW',
      reportingPeriod: 202604,
      RTOUserName: 'Alex Citizen',
      RTOUserEmailAddress: 'alex@example.edu.au',
    })
    assert.equal(outcome.declaration, null)
    assert.deepEqual(
      outcome.blocking.flatMap((g) => g.results.map((r) => r.technicalRuleId)),
      ['DQTS10050', 'DQTS10050'],
    )
    await assert.rejects(
      sdk.declare({
        reportingPeriodNumber: 202604,
        jurisdiction: 'NSW',
        declarationType: 'Declaration',
        RTOAcceptanceOfDeclaration: true,
        RTOUserName: 'A',
        RTOUserEmailAddress: 'a@b',
      }),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.status === 409 &&
        error.reason === ConflictReason.BlockingAssessmentOutcomes,
    )
  })

  it("syncReferenceData: a full load, then after a loader change only the changes, ending with exactly the service's records", async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t), { limits: { pageSize: 4 } })
    const store = new FileReferenceStore(join(scratch, 'sync'))
    const first = await sdk.syncReferenceData('study-reason', store)
    assert.ok(first.pages > 1, 'several pages')
    assert.equal(first.changedSince, '1901-01-01T00:00:00Z')
    assert.equal(await store.readWatermark('study-reason'), first.watermark)
    const held = await collect(pagesOf(sdk, 'study-reason'))
    assert.equal(Object.keys(await store.records('study-reason')).length, new Set(held.map((r) => r.recordId)).size)

    const current = Object.values(await store.records('study-reason')).filter((r) => r.status === 'Active')
    const release = [
      'code\tdescription',
      ...current
        .slice(1)
        .map((r) => `${r.code}\t${r.code === current[1]!.code ? `${r.description} (renamed)` : r.description}`),
      'ZZ\tA new study reason',
    ].join('\n')
    await loadRelease(t.service.database.db, 'study-reason', parseReleaseFile(release, 'release.tsv'))
    const second = await sdk.syncReferenceData('study-reason', store)
    assert.equal(second.changedSince, first.watermark)
    // changedSince is inclusive: the changes, plus the records of the previous watermark's instant again (the seed is one instant).
    assert.ok(second.records >= 3, `${second.records} records`)
    assert.ok(second.watermark > first.watermark, 'the watermark advanced to the loader run')
    const mine = await store.records('study-reason')
    const theirs = latestByRecord(await collect(pagesOf(sdk, 'study-reason')))
    assert.deepEqual(mine, theirs)
    assert.equal(mine[current[0]!.recordId]?.status, 'Inactive', 'the dropped code is end-dated')
  })

  it("syncReferenceData: a run interrupted mid-way keeps the old watermark; the next run resumes from it and ends with exactly the service's records, none missed or repeated", async () => {
    const rto = await newRto(t)
    const store = new FileReferenceStore(join(scratch, 'interrupted'))
    await sdkFor(t.baseUrl, rto, { limits: { pageSize: 3 } }).syncReferenceData('school-type', store)
    const before = await store.readWatermark('school-type')
    const held = Object.values(await store.records('school-type')).filter((r) => r.status === 'Active')
    const release = [
      'code\tdescription',
      ...held.slice(1).map((r) => `${r.code}\t${r.description}`),
      'Z1\tA new school type',
      'Z2\tAnother new school type',
    ].join('\n')
    await loadRelease(t.service.database.db, 'school-type', parseReleaseFile(release, 'release.tsv'))
    // The connection drops on every request for page 2 (and retries give up): the run fails part-way.
    const dropsPageTwo: typeof fetch = async (input, init) => {
      if (String(input).includes('PageNumber=2')) throw new TypeError('connection reset (injected)')
      return fetch(input, init)
    }
    const broken = sdkFor(t.baseUrl, rto, {
      limits: { pageSize: 3 },
      fetch: dropsPageTwo,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    })
    await assert.rejects(broken.syncReferenceData('school-type', store), NetworkError)
    assert.equal(await store.readWatermark('school-type'), before, 'a failed run leaves the watermark')
    const resumed = await sdkFor(t.baseUrl, rto, { limits: { pageSize: 3 } }).syncReferenceData('school-type', store)
    assert.equal(resumed.changedSince, before)
    const mine = await store.records('school-type')
    assert.deepEqual(mine, latestByRecord(await collect(pagesOf(sdkFor(t.baseUrl, rto), 'school-type'))))
    assert.ok(Object.values(mine).some((r) => r.code === 'Z2'))
    assert.equal(mine[held[0]!.recordId]?.status, 'Inactive')
  })

  it('syncReferenceData: a classification by the name classification/<name>', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const outcome = await sdk.syncReferenceData(
      'classification/country',
      new FileReferenceStore(join(scratch, 'country')),
    )
    assert.ok(outcome.records > 200, `${outcome.records} countries`)
  })
})

async function* pagesOf(sdk: ReturnType<typeof sdkFor>, dataset: string) {
  for (let page = 1; ; page++) {
    const answer = await sdk.referencePage(dataset, '1901-01-01T00:00:00Z', page)
    yield* answer.results
    if (answer.results.length === 0 || page >= answer.numberOfPages) return
  }
}

function latestByRecord<R extends { recordId: string }>(records: R[]): Record<string, R> {
  const latest: Record<string, R> = {}
  for (const record of records) latest[record.recordId] = record
  return latest
}
