// Submit and the held dataset (spec: States and transitions, Transaction batch and Record presence in
// submission; Standard workflows 1 to 3): the minimal unit record end to end, versions and history,
// the void workflow with BRTS02180 exactly as the spec tells it, concurrent submissions of one RTO,
// and the signal a submission leaves for data quality assessments.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { firstSubmissionOf, loadBatch } from '../bench/batch-loader.ts'
import { addActivityPeriods, FIRST_REPORTING_PERIOD } from '../src/domain/reporting-period.ts'
import * as holdings from '../src/modules/holdings/holdings.repo.ts'
import {
  allOf,
  minimalUnitRecord,
  Reporter,
  startTestService,
  uploadsOf,
  voided,
  world,
  type TestService,
} from './support/index.ts'

describe('submit and the held dataset', () => {
  let t: TestService
  let r: Reporter
  let other: Reporter
  before(async () => {
    t = await startTestService()
    r = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    other = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
  })
  after(() => t.close())

  const versions = (type: string, uid: string) =>
    t.service.database.db
      .selectFrom('held_record')
      .select([
        'submission_seq',
        'is_current',
        'state_in_submission',
        'change_tracking_identifier',
        'transaction_batch_token',
      ])
      .where('resource_type', '=', type)
      .where('resource_uid', '=', uid)
      .orderBy('submission_seq')
      .execute()

  it('Standard workflow 1 and 2: the minimal unit record validates with no blocking result and submits (200 Submitted); every record is then In submission', async () => {
    const uploads = await minimalUnitRecord()
    const batch = await r.batchWith(uploads)
    const { status, results } = await r.validate(batch)
    assert.equal(status.hasBlockingValidationFailures, false, JSON.stringify(results))
    const submitted = await r.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    assert.deepEqual([submitted.json.status, submitted.json.numberOfRecordsSubmitted], ['Submitted', uploads.length])
    assert.ok(submitted.json.submittedAt)
    assert.equal((await r.request('GET', r.batchPath(batch))).json.status, 'Submitted')
    for (const { segment, body } of uploads) {
      const uid = String(Object.values(body)[0])
      const state = await r.heldState(segment, uid)
      assert.equal(state.stateInSubmission, 'In submission', `${segment} ${uid}`)
      assert.equal(state.changeTrackingIdentifier, body.changeTrackingIdentifier)
      assert.equal(state.submissionDateTime, submitted.json.submittedAt)
      assert.equal(state.jurisdiction, 'NSW')
    }
    const enrolment = uploads.find((u) => u.segment === 'programenrolment')!.body
    assert.equal(
      (await r.heldState('programenrolment', String(enrolment.programEnrolmentUID))).studentActivityDate,
      '2026-10-05',
    )
  })

  it("stateInSubmission is Not found in submission for a UID never submitted, and for another RTO's record", async () => {
    const w = await world()
    assert.equal((await r.heldState('student', w.student.studentUID)).stateInSubmission, 'Not found in submission')
    await r.submitted(allOf(w))
    assert.equal((await other.heldState('student', w.student.studentUID)).stateInSubmission, 'Not found in submission')
    assert.equal((await r.request('GET', '/vet-provider/v1/student/not-a-uuid')).status, 400)
  })

  it('a re-submitted record gets a new version; the earlier one is kept for audit and is no longer current', async () => {
    const w = await world()
    await r.submitted(allOf(w))
    await r.submitted([{ segment: 'student', body: { ...w.student, changeTrackingIdentifier: 'student-v2' } }])
    const held = await versions('Student', w.student.studentUID)
    assert.deepEqual(
      held.map((v) => [v.is_current, v.change_tracking_identifier]),
      [
        [false, w.student.changeTrackingIdentifier],
        [true, 'student-v2'],
      ],
    )
    assert.ok(BigInt(held[1]!.submission_seq) > BigInt(held[0]!.submission_seq))
    const state = await r.heldState('student', w.student.studentUID)
    assert.deepEqual([state.changeTrackingIdentifier, state.numberOfVersions], ['student-v2', 2])
  })

  it('Standard workflow 3, the void: BRTS02180 blocks voiding a location a held subject enrolment uses, with two results sharing one validationGroupingId; voiding the enrolment too submits, and both become Voided in submission', async () => {
    const w = await world()
    // One subject enrolment at the location, and offerings that do not name it, as in the spec's example.
    const subjectOffering = { ...w.subjectOffering, deliveryLocationUID: undefined }
    await r.submitted([
      ...uploadsOf(w, 'student', 'location', 'subject'),
      { segment: 'subjectoffering', body: subjectOffering },
      ...uploadsOf(w, 'subjectEnrolment'),
    ])
    // 1. Confirm the record is held.
    assert.equal(
      (await r.heldState('deliverylocation', w.location.deliveryLocationUID)).stateInSubmission,
      'In submission',
    )
    // 2. A batch re-uploading the location with isVoided true and a voidedReason.
    const batch = await r.batchWith([
      { segment: 'deliverylocation', body: voided(w.location, 'remove_duplicate_record') },
    ])
    const first = await r.validate(batch)
    assert.equal(first.status.hasBlockingValidationFailures, true)
    assert.deepEqual(
      first.results.map((x) => [
        x.errorNumber,
        x.resourceType,
        x.resourceUID,
        x.dataSource,
        x.relatedValidationResultCount,
        x.validationMessageLevel,
      ]),
      [
        ['BRTS02180', 'DeliveryLocation', w.location.deliveryLocationUID, 'Transaction_batch', 2, 'Error'],
        [
          'BRTS02180',
          'SubjectEnrolment',
          w.subjectEnrolment.subjectEnrolmentUID,
          'Previously_submitted_data',
          2,
          'Error',
        ],
      ],
    )
    assert.equal(first.results[0]!.validationGroupingId, first.results[1]!.validationGroupingId)
    assert.equal(first.results[1]!.changeTrackingIdentifier, w.subjectEnrolment.changeTrackingIdentifier)
    assert.deepEqual(first.results[1]!.accessPath, ['$.locations[0].deliveryLocationUID'])
    assert.equal((await r.submit(batch)).json.reason, 'blocking-validation-failures')
    // 3. Include the dependent, voided as an orphan; validate again; submit.
    await r.upload(batch, [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_orphaned_record') }])
    const second = await r.validate(batch)
    assert.deepEqual(
      second.results.filter((x) => x.validationMessageLevel === 'Error'),
      [],
    )
    const submitted = await r.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    // 4. Confirm: voided in submission, history kept.
    const location = await r.heldState('deliverylocation', w.location.deliveryLocationUID)
    assert.deepEqual(
      [location.stateInSubmission, location.voidedReason, location.numberOfVersions],
      ['Voided in submission', 'remove_duplicate_record', 2],
    )
    assert.equal(
      (await r.heldState('subjectenrolment', w.subjectEnrolment.subjectEnrolmentUID)).stateInSubmission,
      'Voided in submission',
    )
    assert.deepEqual(
      (await versions('DeliveryLocation', w.location.deliveryLocationUID)).map((v) => v.state_in_submission),
      ['In submission', 'Voided in submission'],
    )
    // A record voided is not held any more: voiding it again is blocking (BRTS02200).
    const again = await r.batchWith([
      { segment: 'deliverylocation', body: voided(w.location, 'remove_duplicate_record') },
    ])
    assert.ok((await r.validate(again)).results.some((x) => x.errorNumber === 'BRTS02200'))
  })

  it('Validation result, validationGroupingId ("one execution of one rule"): one void of a delivery location that offerings and subject enrolments use is one BRTS02180 group with the location once, and BRTS02190 does not report it again', async () => {
    const w = await world()
    await r.submitted(allOf(w))
    const batch = await r.batchWith([{ segment: 'deliverylocation', body: voided(w.location) }])
    const { results } = await r.validate(batch)
    assert.deepEqual(
      results.map((x) => x.errorNumber),
      ['BRTS02180', 'BRTS02180', 'BRTS02180', 'BRTS02180', 'BRTS02180'],
    )
    assert.equal(new Set(results.map((x) => x.validationGroupingId)).size, 1)
    assert.deepEqual(
      results.filter((x) => x.resourceType === 'DeliveryLocation').map((x) => x.resourceUID),
      [w.location.deliveryLocationUID],
      'the location is listed once',
    )
    assert.deepEqual(
      results
        .slice(1)
        .map((x) => x.resourceType)
        .sort(),
      ['ProgramOffering', 'SubjectEnrolment', 'SubjectEnrolment', 'SubjectOffering'],
    )
  })

  it('voidedReason remove_orphaned_record (Standard workflow 3): a record voided after the record it references was voided is an orphan too, and remove_duplicate_record is blocking (BRTS02210, the voided record Previously_submitted_data)', async () => {
    const w = await world()
    await r.submitted(allOf(w))
    // An SMS prepares a void of the enrolment from its old copy, still pointing at the first offering.
    const stale = await r.batchWith([
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') },
    ])
    // Meanwhile the enrolments move to a new offering and the first offering is voided, and submitted.
    const moved = {
      ...w.subjectOffering,
      subjectOfferingUID: randomUUID(),
      subjectOfferingIdentifier: 'BSBCRT411-26T4B',
    }
    const at = { subjectOfferingUID: moved.subjectOfferingUID }
    await r.submitted([
      { segment: 'subjectoffering', body: moved },
      { segment: 'subjectenrolment', body: { ...w.subjectEnrolment, ...at } },
      { segment: 'subjectenrolment', body: { ...w.subjectEnrolmentInProgram, ...at } },
      { segment: 'subjectoffering', body: voided(w.subjectOffering, 'remove_duplicate_record') },
    ])
    const { status, results } = await r.validate(stale)
    assert.equal(status.hasBlockingValidationFailures, true)
    const own = results.filter((x) => x.errorNumber === 'BRTS02210')
    assert.deepEqual(
      own.map((x) => [x.resourceType, x.resourceUID, x.dataSource, x.accessPath]),
      [
        [
          'SubjectEnrolment',
          w.subjectEnrolment.subjectEnrolmentUID,
          'Transaction_batch',
          ['$.voidedReason', '$.subjectOfferingUID'],
        ],
        ['SubjectOffering', w.subjectOffering.subjectOfferingUID, 'Previously_submitted_data', ['$.isVoided']],
      ],
    )
    assert.match(own[0]!.message, /already voided in submission/)
    // Voided as an orphan instead, it passes this rule.
    await r.upload(stale, [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_orphaned_record') }])
    assert.deepEqual(
      (await r.validate(stale)).results.filter((x) => x.errorNumber === 'BRTS02210'),
      [],
    )
  })

  it('two batches of one RTO submitted concurrently that touch the same UIDs both succeed in a serial order; the later submission wins', async () => {
    const w = await world()
    await r.submitted(allOf(w))
    const batches = []
    for (const version of ['a', 'b']) {
      const batch = await r.batchWith([
        { segment: 'student', body: { ...w.student, changeTrackingIdentifier: `student-${version}` } },
        {
          segment: 'subjectenrolment',
          body: { ...w.subjectEnrolment, changeTrackingIdentifier: `enrolment-${version}` },
        },
      ])
      await r.validate(batch)
      batches.push(batch)
    }
    const [a, b] = await Promise.all(batches.map((batch) => r.submit(batch)))
    assert.deepEqual([a!.status, b!.status], [200, 200], `${a!.text} ${b!.text}`)
    const later = a!.json.submittedAt > b!.json.submittedAt ? 'a' : 'b'
    const student = await versions('Student', w.student.studentUID)
    assert.equal(student.length, 3)
    assert.deepEqual(
      student.map((v) => v.is_current),
      [false, false, true],
    )
    assert.equal(student[2]!.change_tracking_identifier, `student-${later}`)
    const enrolment = await versions('SubjectEnrolment', w.subjectEnrolment.subjectEnrolmentUID)
    assert.equal(enrolment[2]!.change_tracking_identifier, `enrolment-${later}`)
    // Both rows of one submission come from the same batch (applied whole, not interleaved).
    assert.equal(student[2]!.transaction_batch_token, enrolment[2]!.transaction_batch_token)
  })

  it('uploads racing a submit: either the submit wins and every racing upload is refused (409), or an upload lands first and the submit is refused as stale; nothing lands in a submitted batch', async () => {
    const uploads = await minimalUnitRecord()
    const batch = await r.batchWith(uploads)
    assert.equal((await r.validate(batch)).status.hasBlockingValidationFailures, false)
    const student = uploads.find((u) => u.segment === 'student')!
    const racing = Array.from({ length: 12 }, (_, i) =>
      r.request('POST', r.batchPath(batch, '/student'), { ...student.body, changeTrackingIdentifier: `race-${i}` }),
    )
    const [submitted, ...answers] = await Promise.all([r.submit(batch), ...racing])
    const landed = answers.filter((a) => a.status === 200)
    assert.deepEqual(
      answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.text),
      [],
      'every upload is stored (200) or refused (409)',
    )
    const stored = await t.service.database.db
      .selectFrom('batch_record')
      .select('change_tracking_identifier')
      .where('transaction_batch_token', '=', batch)
      .where('resource_type', '=', 'Student')
      .executeTakeFirstOrThrow()
    if (submitted.status === 200) {
      assert.equal(landed.length, 0, 'no upload was accepted into the submitted batch')
      assert.equal(stored.change_tracking_identifier, student.body.changeTrackingIdentifier)
    } else {
      assert.equal(submitted.status, 409, submitted.text)
      assert.ok(landed.length > 0, 'the submit was refused because an upload landed first')
      assert.ok(
        landed.some((a) => a.json.changeTrackingIdentifier === stored.change_tracking_identifier),
        'the stored version is one an upload was told had landed',
      )
    }
  })

  it('a submission records the reporting periods it touched, for the data quality assessments of that jurisdiction', async () => {
    const w = await world()
    await r.submitted(allOf(w))
    const periods = await t.service.database.db
      .selectFrom('reporting_period_submission')
      .select(['jurisdiction', 'reporting_period', 'last_submitted_at'])
      .where('rto_id', '=', '90001')
      .execute()
    assert.ok(
      periods.some((p) => p.jurisdiction === 'NSW' && p.reporting_period === 202604),
      JSON.stringify(periods),
    )
  })

  it("a submission's periods come from its validation's pass over the records, and are those the batch's bodies give", async () => {
    // The periods the run kept, end to end: the world's activity is in 202604.
    const w = await world()
    const token = await r.submitted(allOf(w))
    const run = await t.service.database.db
      .selectFrom('validation_run')
      .select('activity_periods')
      .where('rto_id', '=', '90001')
      .where('transaction_batch_token', '=', token)
      .where('status', '=', 'Validated')
      .executeTakeFirstOrThrow()
    assert.ok(run.activity_periods?.includes(202604), JSON.stringify(run.activity_periods))
    // Submit takes them from the run, not from the bodies: a period only the run names is recorded.
    const next = await r.batchWith(allOf(await world()))
    await r.validate(next)
    await t.service.database.db
      .updateTable('validation_run')
      .set({ activity_periods: [202603] })
      .where('rto_id', '=', '90001')
      .where('transaction_batch_token', '=', next)
      .execute()
    const submitted = await r.submit(next)
    assert.equal(submitted.status, 200, submitted.text)
    const marks = await t.service.database.db
      .selectFrom('reporting_period_submission')
      .select(['reporting_period', 'last_submitted_at'])
      .where('rto_id', '=', '90001')
      .where('jurisdiction', '=', 'NSW')
      .execute()
    const latest = Math.max(...marks.map((m) => new Date(m.last_submitted_at).getTime()))
    assert.ok(
      marks.some((m) => m.reporting_period === 202603 && new Date(m.last_submitted_at).getTime() === latest),
      JSON.stringify(marks),
    )

    // The periods addActivityPeriods finds in bodies of every shape, recorded, against what submit's SQL
    // reads from the same bodies: the same rows. Each way in a transaction rolled back.
    const bodies: unknown[] = [
      { lifecycle: [{ studentActivityDate: '2026-02-10' }, { studentActivityDate: '2026-05-31' }] },
      { lifecycle: [{ studentActivityDate: '2025-12-31' }, { outcomeIdentifierNational: '20' }, 'text', null] },
      { lifecycle: [{ studentActivityDate: '2027-01-01', enrolmentActivityEndDate: '2027-12-31' }] },
      { lifecycle: { studentActivityDate: '2026-08-01' } },
      { lifecycle: 'none' },
      { familyName: 'Nolifecycle' },
    ]
    const found = new Set<number>()
    for (const body of bodies) addActivityPeriods(body, found)
    assert.deepEqual([...found].sort(), [202504, 202601, 202602, 202701])
    const db = t.service.database.db
    const loaded = await loadBatch(db, bodies.length, { rto: '90002', clientId: 'demo-rto-2' }, function* () {
      yield bodies.map((body) => ({
        resource_type: 'SubjectEnrolment',
        resource_uid: randomUUID(),
        change_tracking_identifier: randomUUID(),
        body: body as Record<string, unknown>,
      }))
    })
    const recorded = async (periods: number[] | undefined) => {
      const rollback = new Error('rollback')
      let rows: number[] = []
      await db
        .transaction()
        .execute(async (tx) => {
          const promotion = {
            ...firstSubmissionOf(loaded.token),
            rto: '90002',
            submissionSeq: '987654321',
            submittedAt: new Date('2026-11-20T10:00:00Z'),
          }
          await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD, periods)
          rows = (
            await tx
              .selectFrom('reporting_period_submission')
              .select('reporting_period')
              .where('rto_id', '=', '90002')
              .where('last_submission_seq', '=', promotion.submissionSeq)
              .orderBy('reporting_period')
              .execute()
          ).map((row) => row.reporting_period)
          throw rollback
        })
        .catch((error) => {
          if (error !== rollback) throw error
        })
      return rows
    }
    const fromBodies = await recorded(undefined)
    assert.deepEqual(fromBodies, [202601, 202602, 202604, 202701], 'from 202601, with the period submitted in')
    assert.deepEqual(await recorded([...found]), fromBodies)
  })

  it('submit needs the vet:report scope (403 with only vet:read)', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    const readOnly = await t.token('demo-rto-1', undefined, 'vet:read')
    const response = await new Reporter(t.baseUrl, readOnly).submit(batch)
    assert.equal(response.status, 403)
  })
})
