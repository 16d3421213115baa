// Reconciliation (spec: Reconciliation item; Endpoints, Reconciliation; Errors 400; Limits):
// search-by-period, uid-match and related-resources over the held dataset, through the API.
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  allOf,
  Reporter,
  segmentOf,
  startTestService,
  uidOf,
  uploadsOf,
  V1,
  voided,
  world,
  type TestService,
  type World,
} from './support/index.ts'

describe('reconciliation', () => {
  let t: TestService
  let r: Reporter
  let other: Reporter
  before(async () => {
    t = await startTestService()
    r = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    other = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
  })
  after(() => t.close())

  const search = (query: string, reporter = r) => reporter.request('GET', `${V1}/search-by-period?${query}`)
  const uidMatch = (body: unknown, reporter = r) => reporter.request('POST', `${V1}/uid-match`, body)
  const related = (segment: string, uid: string, query = 'pageSize=500', reporter = r) =>
    reporter.request('GET', `${V1}/${segment}/${uid}/related-resources?${query}`)
  const uidsOf = (response: { json: any }) => response.json.results.map((item: any) => item.resourceUID)

  /** A world whose subject offering belongs to its program offering, so every traversal path exists. */
  const linkedWorld = async (): Promise<World> => {
    const w = await world()
    w.subjectOffering.programOfferingUID = w.programOffering.programOfferingUID
    return w
  }

  it('search-by-period returns the held records of the queried type whose studentActivityDate falls in the periods, with every item field', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    const found = await search('resourceType=SubjectEnrolment&reportingPeriods=202604&pageSize=500')
    assert.equal(found.status, 200, found.text)
    const item = found.json.results.find((x: any) => x.resourceUID === w.subjectEnrolment.subjectEnrolmentUID)
    assert.deepEqual(Object.keys(item).sort(), [
      'changeTrackingIdentifier',
      'resourceType',
      'resourceUID',
      'studentActivityDate',
      'submissionDateTime',
    ])
    assert.deepEqual(
      [item.resourceType, item.changeTrackingIdentifier, item.studentActivityDate],
      ['SubjectEnrolment', w.subjectEnrolment.changeTrackingIdentifier, '2026-10-05'],
    )
    assert.ok(found.json.results.every((x: any) => x.resourceType === 'SubjectEnrolment'))
    assert.deepEqual(
      uidsOf(await search('resourceType=SubjectEnrolment&reportingPeriods=202601,202602,202603')).filter(
        (u: string) => u === w.subjectEnrolment.subjectEnrolmentUID,
      ),
      [],
    )
    const byRange = await search(
      'resourceType=SubjectEnrolment&activityDateFrom=2026-10-05&activityDateTo=2026-10-05&pageSize=500',
    )
    assert.ok(uidsOf(byRange).includes(w.subjectEnrolment.subjectEnrolmentUID))
    assert.ok(
      !uidsOf(
        await search(
          'resourceType=SubjectEnrolment&activityDateFrom=2026-10-06&activityDateTo=2026-12-31&pageSize=500',
        ),
      ).includes(w.subjectEnrolment.subjectEnrolmentUID),
    )
  })

  it('activity dates of records that are not enrolments come from the enrolments that reference them, directly or through offerings', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    for (const [type, uid] of [
      ['Student', w.student.studentUID],
      ['SubjectOffering', w.subjectOffering.subjectOfferingUID],
      ['ProgramOffering', w.programOffering.programOfferingUID],
      ['Subject', w.subject.subjectUID],
      ['Program', w.program.programUID],
    ] as const) {
      const response = await uidMatch({ resourceType: type, reportingPeriod: '202604', resourceUIDs: [uid] })
      assert.deepEqual(
        [response.json.results[0].resourceInSubmission, response.json.results[0].studentActivityDate],
        [true, '2026-10-05'],
        type,
      )
    }
    // A later state of one enrolment moves the student, the offering, the subject and the program with it.
    const later = {
      ...w.subjectEnrolment,
      changeTrackingIdentifier: 'v2',
      lifecycle: [
        ...w.subjectEnrolment.lifecycle,
        { studentStatus: 'Cancelled', studentActivityDate: '2026-11-02', studentStatusReason: 'Formal_withdrawal' },
      ],
    }
    await r.submitted([{ segment: 'subjectenrolment', body: later }])
    for (const [type, uid] of [
      ['Student', w.student.studentUID],
      ['Subject', w.subject.subjectUID],
      ['Program', w.program.programUID],
      ['SubjectEnrolment', w.subjectEnrolment.subjectEnrolmentUID],
    ] as const) {
      const response = await uidMatch({ resourceType: type, reportingPeriod: '202604', resourceUIDs: [uid] })
      assert.equal(response.json.results[0].studentActivityDate, '2026-11-02', type)
    }
  })

  it('results are sorted by studentActivityDate newest first, then by resourceUID, and paged with the shared envelope', async () => {
    const w = await linkedWorld()
    const dates = ['2026-10-07', '2026-10-09', '2026-10-08', '2026-10-09', '2026-10-06']
    const enrolments = dates.map((date, i) => ({
      segment: 'subjectenrolment',
      body: {
        ...w.subjectEnrolment,
        subjectEnrolmentUID: `${i}aaaaaaa-0000-4000-8000-${w.student.studentUID.slice(-12)}`,
        changeTrackingIdentifier: `e${i}`,
        lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: date }],
      },
    }))
    await r.submitted([...allOf(w), ...enrolments])
    const query = `resourceType=SubjectEnrolment&activityDateFrom=2026-10-06&activityDateTo=2026-10-09`
    const all = await search(`${query}&pageSize=500`)
    const ours = all.json.results.filter((x: any) => x.resourceUID.endsWith(w.student.studentUID.slice(-12)))
    assert.deepEqual(
      ours.map((x: any) => x.changeTrackingIdentifier),
      ['e1', 'e3', 'e2', 'e0', 'e4'],
    )
    const sorted = [...all.json.results].sort(
      (a: any, b: any) =>
        b.studentActivityDate.localeCompare(a.studentActivityDate) || a.resourceUID.localeCompare(b.resourceUID),
    )
    assert.deepEqual(all.json.results, sorted)
    const paged = []
    for (let page = 1; page <= Math.ceil(all.json.numberOfResults / 2); page++) {
      const response = await search(`${query}&pageSize=2&pageNumber=${page}`)
      assert.equal(response.json.numberOfResults, all.json.numberOfResults)
      paged.push(...response.json.results)
    }
    assert.deepEqual(paged, all.json.results)
    const past = await search(`${query}&pageNumber=2147483647`)
    assert.deepEqual([past.status, past.json.results], [200, []])
  })

  it('only the latest version of a resubmitted record is returned, once; a voided record is excluded', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    await r.submitted([
      { segment: 'subjectenrolment', body: { ...w.subjectEnrolment, changeTrackingIdentifier: 'second' } },
    ])
    const found = (
      await search('resourceType=SubjectEnrolment&reportingPeriods=202604&pageSize=500')
    ).json.results.filter((x: any) => x.resourceUID === w.subjectEnrolment.subjectEnrolmentUID)
    assert.deepEqual(
      found.map((x: any) => x.changeTrackingIdentifier),
      ['second'],
    )
    await r.submitted([{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment) }])
    assert.ok(
      !uidsOf(await search('resourceType=SubjectEnrolment&reportingPeriods=202604&pageSize=500')).includes(
        w.subjectEnrolment.subjectEnrolmentUID,
      ),
    )
  })

  it('search-by-period 400s: more than 10 codes, a bad code, a repeated code, a bad date, a reversed range, an unsupported type, neither or both filters, page bounds', async () => {
    const bad = [
      'resourceType=Student&reportingPeriods=202601,202602,202603,202604,202501,202502,202503,202504,202401,202402,202403',
      'resourceType=Student&reportingPeriods=202605',
      'resourceType=Student&reportingPeriods=2026Q1',
      'resourceType=Student&reportingPeriods=202601,202601',
      'resourceType=Student&activityDateFrom=2026-02-30&activityDateTo=2026-03-01',
      'resourceType=Student&activityDateFrom=2026-03-02&activityDateTo=2026-03-01',
      'resourceType=Student&activityDateFrom=2026-03-01',
      'resourceType=DeliveryLocation&reportingPeriods=202601',
      'resourceType=student&reportingPeriods=202601',
      'resourceType=Student',
      'resourceType=Student&reportingPeriods=202601&activityDateFrom=2026-01-01&activityDateTo=2026-01-31',
      'reportingPeriods=202601',
      'resourceType=Student&reportingPeriods=202601&pageSize=501',
      'resourceType=Student&reportingPeriods=202601&pageNumber=-1',
      'resourceType=Student&reportingPeriods=202601&pageNumber=2147483648',
    ]
    for (const query of bad) {
      const response = await search(query)
      assert.equal(response.status, 400, query)
      assert.equal(response.json.type, '/problems/structural-validation', query)
    }
    assert.equal(
      (
        await search(
          'resourceType=Student&reportingPeriods=202601,202602,202603,202604,202501,202502,202503,202504,202401,202402',
        )
      ).status,
      200,
    )
  })

  it('search-by-period reportingPeriods (up to 10 codes) takes repeated parameters, comma-separated values, or both mixed, with the same results', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    const forms = [
      'reportingPeriods=202601,202602,202603,202604',
      'reportingPeriods=202601&reportingPeriods=202602&reportingPeriods=202603&reportingPeriods=202604',
      'reportingPeriods=202601,202602&reportingPeriods=202603&reportingPeriods=202604',
    ]
    const answers = await Promise.all(forms.map((form) => search(`resourceType=SubjectEnrolment&${form}&pageSize=500`)))
    for (const [i, answer] of answers.entries()) assert.equal(answer.status, 200, `${forms[i]}: ${answer.text}`)
    assert.ok(uidsOf(answers[0]!).includes(w.subjectEnrolment.subjectEnrolmentUID))
    assert.deepEqual(uidsOf(answers[1]!), uidsOf(answers[0]!), 'repeated parameters')
    assert.deepEqual(uidsOf(answers[2]!), uidsOf(answers[0]!), 'both forms mixed')
    const refused = await search('resourceType=Student&reportingPeriods=202601&reportingPeriods=2026Q2,202603')
    assert.equal(refused.status, 400)
    assert.deepEqual(
      refused.json.errors.map((e: any) => e.accessPath),
      ['query.reportingPeriods[1]'],
      'the access path names the offending code among all given',
    )
    const eleven = ['202601,202602,202603,202604', '202501,202502,202503,202504', '202401', '202402', '202403']
      .map((v) => `reportingPeriods=${v}`)
      .join('&')
    const tooMany = await search(`resourceType=Student&${eleven}`)
    assert.deepEqual(
      [tooMany.status, tooMany.json.errors[0].accessPath],
      [400, 'query.reportingPeriods'],
      'at most 10 codes, however they are sent',
    )
    assert.equal(
      (await search('resourceType=Student&reportingPeriods=202601&reportingPeriods=202601')).status,
      400,
      'a code given twice',
    )
  })

  it('uid-match answers one item per requested UID in request order, with resourceInSubmission for the period', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    const unknown = '11111111-2222-4333-8444-555555555555'
    const response = await uidMatch({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202604',
      resourceUIDs: [unknown, w.subjectEnrolmentInProgram.subjectEnrolmentUID, w.subjectEnrolment.subjectEnrolmentUID],
    })
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(
      response.json.results.map((x: any) => [x.resourceUID, x.resourceInSubmission]),
      [
        [unknown, false],
        [w.subjectEnrolmentInProgram.subjectEnrolmentUID, true],
        [w.subjectEnrolment.subjectEnrolmentUID, true],
      ],
    )
    assert.deepEqual(
      [response.json.results[0].submissionDateTime, response.json.results[0].changeTrackingIdentifier],
      [null, null],
    )
    assert.equal(response.json.results[2].changeTrackingIdentifier, w.subjectEnrolment.changeTrackingIdentifier)
    // Held, but not for another period.
    const other = await uidMatch({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202603',
      resourceUIDs: [w.subjectEnrolment.subjectEnrolmentUID],
    })
    assert.deepEqual(
      [other.json.results[0].resourceInSubmission, other.json.results[0].studentActivityDate],
      [false, '2026-10-05'],
    )
    // The wrong type for the UID: not held as that type.
    const wrongType = await uidMatch({
      resourceType: 'ProgramEnrolment',
      reportingPeriod: '202604',
      resourceUIDs: [w.subjectEnrolment.subjectEnrolmentUID],
    })
    assert.equal(wrongType.json.results[0].resourceInSubmission, false)
  })

  it('uid-match 400s: duplicate UIDs, malformed UIDs, more than 500 UIDs, an empty list, a bad period, an unsupported type', async () => {
    const uid = '11111111-2222-4333-8444-555555555555'
    const many = Array.from({ length: 501 }, (_, i) => `11111111-2222-4333-8444-${String(i).padStart(12, '0')}`)
    const bad = [
      { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: [uid, uid.toUpperCase()] },
      { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: ['not-a-uid'] },
      { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: many },
      { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: [] },
      { resourceType: 'Student', reportingPeriod: '202606', resourceUIDs: [uid] },
      { resourceType: 'DeliveryLocation', reportingPeriod: '202604', resourceUIDs: [uid] },
      { resourceType: 'Student', resourceUIDs: [uid] },
    ]
    for (const body of bad) assert.equal((await uidMatch(body)).status, 400, JSON.stringify(body).slice(0, 120))
    const duplicate = await uidMatch(bad[0])
    assert.deepEqual(
      duplicate.json.errors.map((e: any) => e.accessPath),
      ['$.resourceUIDs[1]'],
    )
    assert.equal(
      (await uidMatch({ resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: many.slice(0, 500) })).status,
      200,
    )
  })

  it("related-resources follows the spec's traversal from a student, a program enrolment and a subject enrolment", async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    const pairs = (response: { json: any }) =>
      response.json.results.map((x: any) => `${x.resourceType}:${x.resourceUID}`).sort()
    const p = (type: string, uid: string) => `${type}:${uid}`
    const student = await related('student', w.student.studentUID)
    assert.equal(student.status, 200, student.text)
    assert.deepEqual(
      pairs(student),
      [
        p('SubjectEnrolment', w.subjectEnrolment.subjectEnrolmentUID),
        p('SubjectEnrolment', w.subjectEnrolmentInProgram.subjectEnrolmentUID),
        p('ProgramEnrolment', w.programEnrolment.programEnrolmentUID),
        p('SubjectOffering', w.subjectOffering.subjectOfferingUID),
        p('ProgramOffering', w.programOffering.programOfferingUID),
        p('Subject', w.subject.subjectUID),
        p('Program', w.program.programUID),
        p('DeliveryLocation', w.location.deliveryLocationUID),
      ].sort(),
    )
    assert.equal(student.json.numberOfResults, 8)
    assert.deepEqual(
      pairs(await related('programenrolment', w.programEnrolment.programEnrolmentUID)),
      [
        p('Student', w.student.studentUID),
        p('ProgramOffering', w.programOffering.programOfferingUID),
        p('Program', w.program.programUID),
      ].sort(),
    )
    const base = [
      p('Student', w.student.studentUID),
      p('SubjectOffering', w.subjectOffering.subjectOfferingUID),
      p('Subject', w.subject.subjectUID),
      p('DeliveryLocation', w.location.deliveryLocationUID),
      p('ProgramOffering', w.programOffering.programOfferingUID),
      p('Program', w.program.programUID),
    ]
    assert.deepEqual(pairs(await related('subjectenrolment', w.subjectEnrolment.subjectEnrolmentUID)), [...base].sort())
    assert.deepEqual(
      pairs(await related('subjectenrolment', w.subjectEnrolmentInProgram.subjectEnrolmentUID)),
      [...base, p('ProgramEnrolment', w.programEnrolment.programEnrolmentUID)].sort(),
    )
    // Paged and sorted like the other reconciliation queries.
    const firstPage = await related('student', w.student.studentUID, 'pageSize=3')
    assert.deepEqual(
      [firstPage.json.numberOfResults, firstPage.json.numberOfPages, firstPage.json.results.length],
      [8, 3, 3],
    )
    // Never content: only item fields.
    assert.deepEqual(Object.keys(student.json.results[0]).sort(), [
      'changeTrackingIdentifier',
      'resourceType',
      'resourceUID',
      'studentActivityDate',
      'submissionDateTime',
    ])
  })

  it('related-resources of a subject enrolment inside a program include the program offering and program of its program enrolment, when its subject offering names none', async () => {
    const w = await world() // the published records: the subject offering names no program offering
    assert.equal(w.subjectOffering.programOfferingUID, undefined)
    await r.submitted(allOf(w))
    const pairs = (response: { json: any }) =>
      response.json.results.map((x: any) => `${x.resourceType}:${x.resourceUID}`).sort()
    const p = (type: string, uid: string) => `${type}:${uid}`
    const base = [
      p('Student', w.student.studentUID),
      p('SubjectOffering', w.subjectOffering.subjectOfferingUID),
      p('Subject', w.subject.subjectUID),
      p('DeliveryLocation', w.location.deliveryLocationUID),
    ]
    const inProgram = await related('subjectenrolment', w.subjectEnrolmentInProgram.subjectEnrolmentUID)
    assert.equal(inProgram.status, 200, inProgram.text)
    assert.deepEqual(
      pairs(inProgram),
      [
        ...base,
        p('ProgramEnrolment', w.programEnrolment.programEnrolmentUID),
        p('ProgramOffering', w.programOffering.programOfferingUID),
        p('Program', w.program.programUID),
      ].sort(),
    )
    assert.equal(inProgram.json.numberOfResults, 7)
    // A subject enrolment outside any program reaches no program.
    assert.deepEqual(pairs(await related('subjectenrolment', w.subjectEnrolment.subjectEnrolmentUID)), base.sort())
  })

  it("related-resources: another starting type is 400; an unknown, voided or other RTO's UID is 404", async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    assert.equal((await related('subject', w.subject.subjectUID)).status, 400)
    assert.equal((await related('deliverylocation', w.location.deliveryLocationUID)).status, 400)
    assert.equal((await related('student', 'not-a-uid')).status, 400)
    assert.equal((await related('student', '11111111-2222-4333-8444-555555555555')).status, 404)
    assert.equal((await related('student', w.student.studentUID, 'pageSize=10', other)).status, 404)
  })

  it("only the caller's RTO's data, ever: another RTO finds nothing by period, by UID or around a record", async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    assert.ok(
      !uidsOf(await search('resourceType=Student&reportingPeriods=202604&pageSize=500', other)).includes(
        w.student.studentUID,
      ),
    )
    const match = await uidMatch(
      { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: [w.student.studentUID] },
      other,
    )
    assert.deepEqual(
      [match.json.results[0].resourceInSubmission, match.json.results[0].submissionDateTime],
      [false, null],
    )
  })

  it('Standard workflow 3 confirmed through reconciliation: after the void is submitted, uid-match says the record is no longer in submission', async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    const before = await uidMatch({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202604',
      resourceUIDs: [w.subjectEnrolment.subjectEnrolmentUID],
    })
    assert.equal(before.json.results[0].resourceInSubmission, true)
    await r.submitted([{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') }])
    const afterVoid = await uidMatch({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202604',
      resourceUIDs: [w.subjectEnrolment.subjectEnrolmentUID],
    })
    assert.deepEqual(
      [afterVoid.json.results[0].resourceInSubmission, afterVoid.json.results[0].submissionDateTime],
      [false, null],
    )
    // The student's related records no longer include it.
    const around = await related('student', w.student.studentUID)
    assert.ok(!uidsOf(around).includes(w.subjectEnrolment.subjectEnrolmentUID))
  })

  it('a submission is indexed for reconciliation by a queued job: reconciledAt is null until then, and set once it is reflected', async () => {
    const w = await linkedWorld()
    const batch = await r.batchWith(allOf(w))
    assert.equal((await r.request('GET', r.batchPath(batch))).json.reconciledAt, null)
    await r.validate(batch)
    assert.equal((await r.submit(batch)).status, 200)
    await r.waitForReconciled(batch)
    const match = await uidMatch({
      resourceType: 'Student',
      reportingPeriod: '202604',
      resourceUIDs: [w.student.studentUID],
    })
    assert.equal(match.json.results[0].resourceInSubmission, true)
    const submittedAt = (await r.request('GET', r.batchPath(batch))).json.submittedAt
    assert.equal(match.json.results[0].submissionDateTime, submittedAt)
  })

  /** The reporting period a date falls in: 2026-11-23 is 202604. */
  const periodOf = (date: string) => `${date.slice(0, 4)}0${Math.ceil(Number(date.slice(5, 7)) / 3)}`
  /** The one uid-match item of a UID, for the period given (or the period of its own activity date). */
  const matchOne = async (resourceType: string, uid: string, reportingPeriod: string) => {
    const response = await uidMatch({ resourceType, reportingPeriod, resourceUIDs: [uid] })
    assert.equal(response.status, 200, response.text)
    return response.json.results[0]
  }
  const submittedAtOf = async (batch: string): Promise<string> =>
    (await r.request('GET', r.batchPath(batch))).json.submittedAt

  it('Reconciliation: a held Subject and Program whose every enrolment was voided are still found by uid-match and search-by-period, as are their offerings, the delivery location and the student left without enrolments, dated by their own latest submission', async () => {
    const w = await linkedWorld()
    const first = await r.submitted(allOf(w))
    const submittedAt = await submittedAtOf(first)
    const submissionDate = submittedAt.slice(0, 10)
    // Every enrolment that used them is voided; the records they used stay In submission.
    await r.submitted([
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') },
      // voided with the program enrolment it counts towards, so it is an orphan (BRTS02210)
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolmentInProgram, 'remove_orphaned_record') },
      { segment: 'programenrolment', body: voided(w.programEnrolment, 'remove_duplicate_record') },
    ])
    const left = [
      ['Student', 'student', w.student],
      ['Subject', 'subject', w.subject],
      ['Program', 'program', w.program],
      ['SubjectOffering', 'subjectoffering', w.subjectOffering],
      ['ProgramOffering', 'programoffering', w.programOffering],
    ] as const
    for (const [type, segment, body] of left) {
      const uid = uidOf(body)
      assert.equal((await r.heldState(segment, uid)).stateInSubmission, 'In submission', type)
      const item = await matchOne(type, uid, periodOf(submissionDate))
      assert.deepEqual(
        [item.resourceInSubmission, item.studentActivityDate, item.submissionDateTime, item.changeTrackingIdentifier],
        [true, submissionDate, submittedAt, body.changeTrackingIdentifier],
        type,
      )
      const byDay = await search(
        `resourceType=${type}&activityDateFrom=${submissionDate}&activityDateTo=${submissionDate}&pageSize=500`,
      )
      assert.deepEqual(
        byDay.json.results.filter((x: any) => x.resourceUID === uid).map((x: any) => x.studentActivityDate),
        [submissionDate],
        type,
      )
      assert.ok(
        uidsOf(await search(`resourceType=${type}&reportingPeriods=${periodOf(submissionDate)}&pageSize=500`)).includes(
          uid,
        ),
        type,
      )
      // The same date on the held-state GET.
      assert.equal((await r.heldState(segment, uid)).studentActivityDate, submissionDate, type)
    }
    // A delivery location is not a type search-by-period or uid-match take; its held state shows the date all the same.
    const location = await r.heldState('deliverylocation', w.location.deliveryLocationUID)
    assert.deepEqual([location.stateInSubmission, location.studentActivityDate], ['In submission', submissionDate])
    // The voided enrolments stay out: not matched, not found, and their held state has no activity date.
    for (const [type, segment, body] of [
      ['SubjectEnrolment', 'subjectenrolment', w.subjectEnrolment],
      ['SubjectEnrolment', 'subjectenrolment', w.subjectEnrolmentInProgram],
      ['ProgramEnrolment', 'programenrolment', w.programEnrolment],
    ] as const) {
      const uid = uidOf(body)
      const item = await matchOne(type, uid, '202604')
      assert.deepEqual(
        [item.resourceInSubmission, item.studentActivityDate, item.submissionDateTime],
        [false, null, null],
        type,
      )
      assert.ok(!uidsOf(await search(`resourceType=${type}&reportingPeriods=202604&pageSize=500`)).includes(uid), type)
      const held = await r.heldState(segment, uid)
      assert.deepEqual([held.stateInSubmission, held.studentActivityDate], ['Voided in submission', null], type)
    }
  })

  it('Reconciliation: a record submitted without any enrolment (a Subject, a Student) is found by uid-match and search-by-period on the date it was submitted', async () => {
    const w = await world()
    const batch = await r.submitted(uploadsOf(w, 'student', 'subject'))
    const submissionDate = (await submittedAtOf(batch)).slice(0, 10)
    for (const [type, body] of [
      ['Student', w.student],
      ['Subject', w.subject],
    ] as const) {
      const item = await matchOne(type, uidOf(body), periodOf(submissionDate))
      assert.deepEqual([item.resourceInSubmission, item.studentActivityDate], [true, submissionDate], type)
      assert.ok(
        uidsOf(
          await search(
            `resourceType=${type}&activityDateFrom=${submissionDate}&activityDateTo=${submissionDate}&pageSize=500`,
          ),
        ).includes(uidOf(body)),
        type,
      )
    }
    // Once an enrolment uses them, its activity date is theirs, not the submission's.
    await r.submitted(uploadsOf(w, 'location', 'subjectOffering', 'subjectEnrolment'))
    for (const [type, body] of [
      ['Student', w.student],
      ['Subject', w.subject],
    ] as const) {
      assert.equal((await matchOne(type, uidOf(body), '202604')).studentActivityDate, '2026-10-05', type)
    }
  })

  it("Reconciliation is driven by student activity date: a record's submission dates only that record, while no current enrolment does, and never the records above it", async () => {
    const w = await linkedWorld()
    await r.submitted(allOf(w))
    // A second offering of the same subject and program offering, with no enrolment yet.
    const unused = {
      ...w.subjectOffering,
      subjectOfferingUID: randomUUID(),
      subjectOfferingIdentifier: `${w.subjectOffering.subjectOfferingIdentifier}-B`,
      changeTrackingIdentifier: 'unused-offering',
    }
    const batch = await r.submitted([{ segment: 'subjectoffering', body: unused }])
    const submissionDate = (await submittedAtOf(batch)).slice(0, 10)
    assert.equal(
      (await matchOne('SubjectOffering', unused.subjectOfferingUID, periodOf(submissionDate))).studentActivityDate,
      submissionDate,
    )
    for (const [type, body] of [
      ['Subject', w.subject],
      ['ProgramOffering', w.programOffering],
      ['Program', w.program],
    ] as const) {
      assert.equal((await matchOne(type, uidOf(body), '202604')).studentActivityDate, '2026-10-05', type)
    }
  })

  it('Reconciliation: the held-state GET shows the studentActivityDate reconciliation searches each record by', async () => {
    const w = await linkedWorld()
    const later = {
      ...w.subjectEnrolment,
      lifecycle: [
        ...w.subjectEnrolment.lifecycle,
        { studentStatus: 'Cancelled', studentActivityDate: '2026-11-02', studentStatusReason: 'Formal_withdrawal' },
      ],
    }
    await r.submitted([
      ...allOf(w).filter((u) => u.body !== w.subjectEnrolment),
      { segment: 'subjectenrolment', body: later },
    ])
    for (const name of [
      'student',
      'subject',
      'subjectOffering',
      'subjectEnrolment',
      'program',
      'programOffering',
      'programEnrolment',
      'subjectEnrolmentInProgram',
    ] as const) {
      const uid = uidOf(w[name])
      const type = {
        student: 'Student',
        subject: 'Subject',
        subjectOffering: 'SubjectOffering',
        subjectEnrolment: 'SubjectEnrolment',
        program: 'Program',
        programOffering: 'ProgramOffering',
        programEnrolment: 'ProgramEnrolment',
        subjectEnrolmentInProgram: 'SubjectEnrolment',
      }[name]
      const item = await matchOne(type, uid, '202604')
      assert.equal(item.resourceInSubmission, true, name)
      assert.equal((await r.heldState(segmentOf(name), uid)).studentActivityDate, item.studentActivityDate, name)
    }
    // Dated through the enrolments: the later state of one subject enrolment dates its student, offering, subject and program.
    assert.equal((await r.heldState('subject', w.subject.subjectUID)).studentActivityDate, '2026-11-02')
    assert.equal(
      (await r.heldState('programenrolment', w.programEnrolment.programEnrolmentUID)).studentActivityDate,
      '2026-10-05',
    )
    // A delivery location is dated like the related-resources item reconciliation shows for it.
    const around = await related('student', w.student.studentUID)
    const locationItem = around.json.results.find((x: any) => x.resourceType === 'DeliveryLocation')
    assert.equal(
      (await r.heldState('deliverylocation', w.location.deliveryLocationUID)).studentActivityDate,
      locationItem.studentActivityDate,
    )
    assert.equal(locationItem.studentActivityDate, '2026-11-02')
  })

  it('reconciliation needs the vet:read scope', async () => {
    const reportOnly = new Reporter(t.baseUrl, await t.token('demo-rto-1', undefined, 'vet:report'))
    assert.equal((await search('resourceType=Student&reportingPeriods=202604', reportOnly)).status, 403)
  })
})
