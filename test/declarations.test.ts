// Declarations (spec: Declaration; States and transitions, Declarations; Endpoints, Declarations;
// Errors, Declaration rejections; Limits, Declaration due): every field rule of the Declaration table,
// each refusal reason, the success and late messages, nil activity reports, supersession, the
// alternative path, and the GET listing's filters, bounds, sort, paging and null rows with due dates.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  allOf,
  declarationBody,
  newRto,
  PERIOD,
  Reporter,
  startTestService,
  V1,
  voided,
  world,
  type Rto,
  type TestService,
} from './support/index.ts'
import { cancelledProgramWithActiveSubject, twoStudentsOneUsi } from './golden/assessment-cases.ts'
import { utcToday } from '../src/domain/reporting-period.ts'

const LATE =
  /more than one month after the reporting period ended; the RTO may be contacted for a reason for late reporting/

/** A new RTO whose assessment of the period (NSW) is Validated without outcomes: nothing held, nothing wrong. */
async function readyRto(t: TestService, period = PERIOD): Promise<Rto> {
  const rto = await newRto(t)
  await rto.assessor.assess(period)
  return rto
}

function listing(rto: Rto, query: string) {
  return rto.reporter.request('GET', `${V1}/declaration?${query}`)
}

async function rowsOf(rto: Rto, query: string): Promise<Record<string, any>[]> {
  const response = await listing(rto, query)
  assert.equal(response.status, 200, response.text)
  return response.json.results
}

describe('declarations', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('Declaration table field rules: each failure is a 400 naming its field, and nothing is stored', async () => {
    const rto = await readyRto(t)
    const cases: [string, Record<string, unknown>, string][] = [
      ['reportingPeriodNumber is required', { reportingPeriodNumber: undefined }, '$.reportingPeriodNumber'],
      ['one reporting period only', { reportingPeriodNumber: [202603, 202604] }, '$.reportingPeriodNumber'],
      ['reporting period before 202601', { reportingPeriodNumber: 202504 }, '$.reportingPeriodNumber'],
      ['quarter 5 does not exist', { reportingPeriodNumber: 202605 }, '$.reportingPeriodNumber'],
      ['a future period', { reportingPeriodNumber: 202701 }, '$.reportingPeriodNumber'],
      ['jurisdiction is required', { jurisdiction: undefined }, '$.jurisdiction'],
      ['jurisdiction from the list', { jurisdiction: 'XX' }, '$.jurisdiction'],
      ['declarationType from the list', { declarationType: 'Nil' }, '$.declarationType'],
      [
        'RTOAcceptanceOfDeclaration must be true',
        { RTOAcceptanceOfDeclaration: false },
        '$.RTOAcceptanceOfDeclaration',
      ],
      [
        'RTOAcceptanceOfDeclaration is required',
        { RTOAcceptanceOfDeclaration: undefined },
        '$.RTOAcceptanceOfDeclaration',
      ],
      ['RTOUserName at most 80 characters', { RTOUserName: 'a'.repeat(81) }, '$.RTOUserName'],
      ['RTOUserName is required', { RTOUserName: undefined }, '$.RTOUserName'],
      [
        'RTOUserEmailAddress at most 320 characters',
        { RTOUserEmailAddress: `${'a'.repeat(300)}@${'b'.repeat(20)}` },
        '$.RTOUserEmailAddress',
      ],
      ['RTOUserEmailAddress has an @', { RTOUserEmailAddress: 'alex.example.edu.au' }, '$.RTOUserEmailAddress'],
      [
        'dateOfLastReportableActivity required for a nil activity report',
        { declarationType: 'Nil_activity_report' },
        '$.dateOfLastReportableActivity',
      ],
      [
        'dateOfLastReportableActivity earlier than the period start',
        { declarationType: 'Nil_activity_report', dateOfLastReportableActivity: '2026-10-01' },
        '$.dateOfLastReportableActivity',
      ],
      [
        'dateOfLastReportableActivity is a date',
        { declarationType: 'Nil_activity_report', dateOfLastReportableActivity: '2026-02-30' },
        '$.dateOfLastReportableActivity',
      ],
      [
        'dateOfLastReportableActivity only with a nil activity report',
        { dateOfLastReportableActivity: '2026-09-01' },
        '$.dateOfLastReportableActivity',
      ],
      ['no unknown fields', { declarationComment: 'x' }, '$.declarationComment'],
    ]
    for (const [name, changes, accessPath] of cases) {
      const response = await rto.assessor.declare(declarationBody(changes))
      assert.equal(response.status, 400, `${name}: ${response.text}`)
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, name)
      assert.ok(
        response.json.errors.some((e: any) => e.accessPath === accessPath),
        `${name}: ${JSON.stringify(response.json.errors)}`,
      )
    }
    const rows = await rowsOf(rto, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW&includeSuperseded=true`)
    assert.deepEqual(
      rows.map((r) => r.declaration),
      [null],
      'no refused declaration was stored',
    )
    const longest = await rto.assessor.declare(
      declarationBody({ RTOUserName: 'a'.repeat(80), RTOUserEmailAddress: `${'a'.repeat(299)}@${'b'.repeat(20)}` }),
    )
    assert.equal(longest.status, 200, `80 and 320 characters are allowed: ${longest.text}`)
  })

  it('Declaration rejection assessment-not-requested: no assessment exists for the period (409)', async () => {
    const { assessor } = await newRto(t)
    const refused = await assessor.declare(declarationBody())
    assert.equal(refused.status, 409, refused.text)
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(refused.json.reason, 'assessment-not-requested')
    assert.match(refused.json.detail, /validate/)
  })

  it('Declaration rejection assessment-not-validated: the assessment is Required after new data (409)', async () => {
    const { reporter, assessor } = await readyRto(t)
    await reporter.submitted(allOf(await world()))
    assert.equal((await assessor.status()).json.assessmentStatus, 'Required')
    const refused = await assessor.declare(declarationBody())
    assert.equal(refused.status, 409, refused.text)
    assert.equal(refused.json.reason, 'assessment-not-validated')
    assert.match(refused.json.detail, /Required/)
  })

  it('Declaration rejection blocking-assessment-outcomes: the Validated assessment has an Error outcome (409); a nil activity report is refused alike', async () => {
    const { reporter, assessor } = await newRto(t)
    const w = await world()
    for (const batch of twoStudentsOneUsi(w, await world())) await reporter.submitted(batch)
    const { status, results } = await assessor.assess()
    assert.equal(status.hasBlockingFailures, true)
    assert.ok(results.some((r) => r.AssessmentMessageLevel === 'Error'))
    for (const body of [
      declarationBody(),
      declarationBody({ declarationType: 'Nil_activity_report', dateOfLastReportableActivity: '2026-09-30' }),
    ]) {
      const refused = await assessor.declare(body)
      assert.equal(refused.status, 409, refused.text)
      assert.equal(refused.json.reason, 'blocking-assessment-outcomes')
    }
  })

  it('a Warning outcome does not block declaring', async () => {
    const { reporter, assessor } = await newRto(t)
    const w = await world()
    await reporter.submitted([
      { segment: 'student', body: { ...w.student, dateOfBirth: '2022-01-01' } },
      ...allOf(w).slice(1),
    ])
    const { status } = await assessor.assess()
    assert.deepEqual([status.hasBlockingFailures, status.hasNonBlockingFailures], [false, true])
    assert.equal((await assessor.declare(declarationBody())).status, 200)
  })

  it('Enrolment lifecycle, Cancelled: only that enrolment changes and related enrolments stay active, so a cancelled program with a commenced subject does not block declaring', async () => {
    const { reporter, assessor } = await newRto(t)
    for (const batch of cancelledProgramWithActiveSubject(await world())) await reporter.submitted(batch)
    const { status, results } = await assessor.assess()
    assert.deepEqual(
      results.filter((r) => r.technicalRuleId === 'DQTS10120').map((r) => r.AssessmentMessageLevel),
      ['Warning', 'Warning'],
    )
    assert.equal(status.hasBlockingFailures, false)
    const saved = await assessor.declare(declarationBody())
    assert.equal(saved.status, 200, saved.text)
  })

  it('200 success message: saved for the reporting period and jurisdiction, on time without the late sentence', async () => {
    const { clientId, assessor } = await readyRto(t)
    const saved = await assessor.declare(declarationBody())
    assert.equal(saved.status, 200, saved.text)
    assert.equal(saved.json.message, `Declaration saved for reporting period ${PERIOD} and jurisdiction NSW.`)
    const d = saved.json.declaration
    assert.deepEqual(
      [
        d.reportingPeriodNumber,
        d.jurisdiction,
        d.declarationType,
        d.dateOfLastReportableActivity,
        d.RTOAcceptanceOfDeclaration,
        d.RTOUserName,
        d.RTOUserEmailAddress,
        d.declaredByClient,
        d.isCurrent,
        d.isLate,
        d.declarationDueDate,
      ],
      [
        PERIOD,
        'NSW',
        'Declaration',
        null,
        true,
        'Alex Citizen',
        'alex.citizen@example.edu.au',
        clientId,
        true,
        false,
        '2027-01-31',
      ],
    )
    assert.equal(d.declaredAt.slice(0, 10), utcToday())
  })

  it('late declaration: made more than one month after the period ended, the message says the RTO may be contacted for a reason', async () => {
    const { assessor } = await readyRto(t, 202601)
    const saved = await assessor.declare(declarationBody({ reportingPeriodNumber: 202601 }))
    assert.equal(saved.status, 200, saved.text)
    assert.match(saved.json.message, /^Declaration saved for reporting period 202601 and jurisdiction NSW\. /)
    assert.match(saved.json.message, LATE)
    assert.deepEqual([saved.json.declaration.isLate, saved.json.declaration.declarationDueDate], [true, '2026-04-30'])
  })

  it('nil activity report: dateOfLastReportableActivity before the period start is kept, due before one month after the next period starts', async () => {
    const { assessor } = await readyRto(t, 202602)
    const saved = await assessor.declare(
      declarationBody({
        reportingPeriodNumber: '202602',
        declarationType: 'Nil_activity_report',
        dateOfLastReportableActivity: '2026-03-15',
      }),
    )
    assert.equal(saved.status, 200, saved.text)
    assert.match(saved.json.message, /^Nil activity report saved for reporting period 202602 and jurisdiction NSW\./)
    const d = saved.json.declaration
    assert.deepEqual(
      [d.declarationType, d.dateOfLastReportableActivity, d.declarationDueDate, d.isLate],
      ['Nil_activity_report', '2026-03-15', '2026-07-31', true],
    )
  })

  it('Nil_activity_report ("had none") is refused with 409 reportable-activity-held while the period holds reportable activity (NSW 202604, activity dated 2026-10-05); a Declaration of the same data is accepted', async () => {
    const rto = await newRto(t)
    const { reporter, assessor } = rto
    const w = await world()
    await reporter.submitted(allOf(w))
    const { status } = await assessor.assess()
    assert.equal(
      status.hasBlockingFailures,
      false,
      'the assessment itself does not block: which declaration is made decides',
    )
    const nil = declarationBody({ declarationType: 'Nil_activity_report', dateOfLastReportableActivity: '2026-09-30' })
    const refused = await assessor.declare(nil)
    assert.equal(refused.status, 409, refused.text)
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(refused.json.reason, 'reportable-activity-held')
    assert.match(
      refused.json.detail,
      new RegExp(`SubjectEnrolment ${w.subjectEnrolment.subjectEnrolmentUID} \\(a lifecycle state dated 2026-10-05\\)`),
    )
    assert.match(
      refused.json.detail,
      /3 enrolment\(s\) with activity in it are held/,
      'two subject enrolments and the program enrolment',
    )
    const rows = await rowsOf(rto, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
    assert.equal(rows[0]!.declaration, null, 'nothing was stored')
    const declared = await assessor.declare(declarationBody())
    assert.equal(declared.status, 200, declared.text)
  })

  it('Nil_activity_report: activity only in another period or another jurisdiction, or voided, does not stop it', async () => {
    const { reporter, assessor } = await newRto(t)
    const w = await world()
    await reporter.submitted(allOf(w))
    // 202603 (July to September 2026) holds nothing: the examples' activity is in October.
    await assessor.assess(202603)
    assert.equal(
      (
        await assessor.declare(
          declarationBody({
            reportingPeriodNumber: 202603,
            declarationType: 'Nil_activity_report',
            dateOfLastReportableActivity: '2026-06-30',
          }),
        )
      ).status,
      200,
    )
    await assessor.assess(PERIOD, 'VIC')
    assert.equal(
      (
        await assessor.declare(
          declarationBody({
            jurisdiction: 'VIC',
            declarationType: 'Nil_activity_report',
            dateOfLastReportableActivity: '2026-09-30',
          }),
        )
      ).status,
      200,
      "the NSW activity is not VIC's",
    )
    // Voided in submission, the activity is no longer held: the period then has none.
    await reporter.submitted([
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') },
      { segment: 'subjectenrolment', body: voided(w.subjectEnrolmentInProgram, 'remove_orphaned_record') },
      { segment: 'programenrolment', body: voided(w.programEnrolment, 'remove_duplicate_record') },
    ])
    await assessor.assess()
    const saved = await assessor.declare(
      declarationBody({ declarationType: 'Nil_activity_report', dateOfLastReportableActivity: '2026-09-30' }),
    )
    assert.equal(saved.status, 200, saved.text)
  })

  it('the latest declaration supersedes earlier ones, which are kept but no longer current (includeSuperseded)', async () => {
    const rto = await readyRto(t)
    const first = (await rto.assessor.declare(declarationBody({ RTOUserName: 'First Person' }))).json.declaration
    const second = (await rto.assessor.declare(declarationBody({ RTOUserName: 'Second Person' }))).json.declaration
    assert.notEqual(first.declarationId, second.declarationId)
    const current = await rowsOf(rto, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
    assert.deepEqual(
      current.map((r) => [r.declaration.RTOUserName, r.declaration.isCurrent]),
      [['Second Person', true]],
    )
    const all = await rowsOf(rto, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW&includeSuperseded=true`)
    assert.deepEqual(
      all.map((r) => [r.declaration.declarationId, r.declaration.isCurrent]).sort(),
      [
        [first.declarationId, false],
        [second.declarationId, true],
      ].sort(),
    )
  })

  it('a declaration locks nothing: data can be submitted for the declared period afterwards, which makes the assessment Required', async () => {
    const rto = await readyRto(t)
    assert.equal((await rto.assessor.declare(declarationBody())).status, 200)
    await rto.reporter.submitted(allOf(await world()))
    assert.equal((await rto.assessor.status()).json.assessmentStatus, 'Required')
    const rows = await rowsOf(rto, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
    assert.equal(rows[0]!.declaration.isCurrent, true, 'the declaration stays current')
  })

  it('alternative path POST /reporting-period/{jurisdiction}/{ReportingPeriodNumber}/declaration: period from the path; a body that disagrees is 400', async () => {
    const rto = await readyRto(t)
    const path = rto.assessor.path('NSW', PERIOD, '/declaration')
    const { reportingPeriodNumber: _p, jurisdiction: _j, ...rest } = declarationBody()
    const saved = await rto.assessor.request('POST', path, rest)
    assert.equal(saved.status, 200, saved.text)
    assert.equal(saved.json.message, `Declaration saved for reporting period ${PERIOD} and jurisdiction NSW.`)
    assert.equal(
      (await rto.assessor.request('POST', path, declarationBody())).status,
      200,
      'the body may repeat the path',
    )
    for (const changes of [{ reportingPeriodNumber: 202603 }, { jurisdiction: 'VIC' }]) {
      const response = await rto.assessor.request('POST', path, declarationBody(changes))
      assert.equal(response.status, 400, response.text)
      assert.match(response.json.errors[0].message, /must match the path/)
    }
    assert.equal(
      (await rto.assessor.request('POST', rto.assessor.path('NSW', 202605, '/declaration'), rest)).status,
      400,
    )
    const refused = await rto.assessor.request('POST', rto.assessor.path('VIC', PERIOD, '/declaration'), rest)
    assert.equal(refused.json.reason, 'assessment-not-requested', 'the assessment is per jurisdiction')
  })

  it('GET declaration query bounds: each out-of-bounds or missing parameter is 400', async () => {
    const rto = await newRto(t)
    const eleven = Array.from({ length: 11 }, (_, i) => 202601 + (i % 4) + 100 * Math.floor(i / 4)).join(',')
    const queries = [
      '',
      'jurisdiction=NSW',
      `reportingPeriodNumber=${eleven}`,
      'reportingPeriodNumber=202504',
      'reportingPeriodNumber=202701',
      'reportingPeriodNumber=202601,202601',
      'reportingPeriodNumber=2026Q1',
      'reportingPeriodNumber=202601&startDate=2026-01-01&endDate=2026-02-01',
      'startDate=2026-01-01',
      'endDate=2026-02-01',
      'startDate=2025-12-31&endDate=2026-02-01',
      `startDate=2026-01-01&endDate=2099-01-01`,
      'startDate=2026-05-01&endDate=2026-04-01',
      'startDate=2026-13-01&endDate=2026-02-01',
      `reportingPeriodNumber=${PERIOD}&pageSize=101`,
      `reportingPeriodNumber=${PERIOD}&pageNumber=101`,
      `reportingPeriodNumber=${PERIOD}&pageSize=0`,
      `reportingPeriodNumber=${PERIOD}&sortOrder=Up`,
      `reportingPeriodNumber=${PERIOD}&declarationTypes=Nil`,
      `reportingPeriodNumber=${PERIOD}&jurisdiction=XX`,
      `reportingPeriodNumber=${PERIOD}&colour=red`,
    ]
    for (const query of queries) {
      const response = await listing(rto, query)
      assert.equal(response.status, 400, `${query}: ${response.text}`)
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, query)
    }
    assert.equal(
      (
        await listing(
          rto,
          `reportingPeriodNumber=${eleven
            .split(',')
            .slice(0, 10)
            .filter((p) => Number(p) <= PERIOD)
            .join(',')}&pageSize=100&pageNumber=100`,
        )
      ).status,
      200,
      'the maxima themselves are allowed',
    )
  })

  it('GET declaration: periods without a declaration appear as null with their declarationDueDate', async () => {
    const rto = await newRto(t)
    const rows = await rowsOf(rto, 'reportingPeriodNumber=202601,202602,202603,202604&jurisdiction=NSW&sortOrder=Asc')
    assert.deepEqual(
      rows.map((r) => [r.reportingPeriodNumber, r.jurisdiction, r.declaration, r.declarationDueDate]),
      [
        [202601, 'NSW', null, '2026-04-30'],
        [202602, 'NSW', null, '2026-07-30'],
        [202603, 'NSW', null, '2026-10-30'],
        [202604, 'NSW', null, '2027-01-31'],
      ],
    )
    const nil = await rowsOf(
      rto,
      'reportingPeriodNumber=202601,202602,202603,202604&jurisdiction=NSW&sortOrder=Asc&declarationTypes=Nil_activity_report',
    )
    assert.deepEqual(
      nil.map((r) => r.declarationDueDate),
      ['2026-04-30', '2026-07-31', '2026-10-31', '2027-01-31'],
      'a nil activity report is due before one month after the next period starts',
    )
  })

  it('GET declaration query parameters reportingPeriodNumber and declarationTypes take repeated parameters, comma-separated values, or both mixed', async () => {
    const rto = await newRto(t)
    const periodsOf = async (query: string) =>
      (await rowsOf(rto, `${query}&jurisdiction=NSW&sortOrder=Asc`)).map((r) => r.reportingPeriodNumber)
    const expected = [202601, 202602, 202603]
    assert.deepEqual(await periodsOf('reportingPeriodNumber=202601,202602,202603'), expected, 'comma-separated')
    assert.deepEqual(
      await periodsOf('reportingPeriodNumber=202601&reportingPeriodNumber=202602&reportingPeriodNumber=202603'),
      expected,
      'repeated, as generated clients send an array',
    )
    assert.deepEqual(
      await periodsOf('reportingPeriodNumber=202601,202602&reportingPeriodNumber=202603'),
      expected,
      'both mixed',
    )
    const nil = await rowsOf(
      rto,
      'reportingPeriodNumber=202601&jurisdiction=NSW&declarationTypes=Nil_activity_report&declarationTypes=Nil_activity_report',
    )
    assert.deepEqual(
      nil.map((r) => r.declarationDueDate),
      ['2026-04-30'],
      'a repeated declarationTypes value counts once: the Nil_activity_report due date',
    )
    const refused = await listing(
      rto,
      'reportingPeriodNumber=202601&reportingPeriodNumber=2026Q2&declarationTypes=Declaration&declarationTypes=Nil',
    )
    assert.equal(refused.status, 400, refused.text)
    assert.deepEqual(
      refused.json.errors.map((e: any) => e.accessPath).sort(),
      ['query.declarationTypes[1]', 'query.reportingPeriodNumber[1]'],
      'access paths name the offending value among all given',
    )
    const eleven = Array.from(
      { length: 11 },
      (_, i) => `reportingPeriodNumber=${202601 + (i % 4) + 100 * Math.floor(i / 4)}`,
    ).join('&')
    assert.equal((await listing(rto, eleven)).status, 400, 'at most 10 periods, however they are sent')
    assert.equal(
      (await listing(rto, 'reportingPeriodNumber=202601&reportingPeriodNumber=202601')).status,
      400,
      'a period given twice',
    )
  })

  it('GET declaration: sortOrder Desc by default and Asc on request; paging with pageNumber and pageSize; startDate and endDate select the overlapping periods', async () => {
    const rto = await newRto(t)
    const range = `startDate=2026-01-01&endDate=${utcToday()}&jurisdiction=NSW`
    const desc = await listing(rto, range)
    assert.equal(desc.status, 200, desc.text)
    assert.deepEqual(
      desc.json.results.map((r: any) => r.reportingPeriodNumber),
      [202604, 202603, 202602, 202601],
    )
    assert.deepEqual(
      (await rowsOf(rto, `${range}&sortOrder=Asc`)).map((r) => r.reportingPeriodNumber),
      [202601, 202602, 202603, 202604],
    )
    const first = await listing(rto, `${range}&pageSize=3`)
    assert.deepEqual(
      [
        first.json.pageNumber,
        first.json.pageSize,
        first.json.numberOfPages,
        first.json.numberOfResults,
        first.json.results.length,
      ],
      [1, 3, 2, 4, 3],
    )
    const second = await listing(rto, `${range}&pageSize=3&pageNumber=2`)
    assert.deepEqual(
      second.json.results.map((r: any) => r.reportingPeriodNumber),
      [202601],
    )
    assert.deepEqual(
      (await rowsOf(rto, 'startDate=2026-04-15&endDate=2026-08-01&jurisdiction=NSW&sortOrder=Asc')).map(
        (r) => r.reportingPeriodNumber,
      ),
      [202602, 202603],
    )
  })

  it('GET declaration: without a jurisdiction, one row per jurisdiction the RTO reported or declared under; declarationTypes leaves out declarations of other types', async () => {
    const rto = await readyRto(t, 202602)
    await rto.assessor.assess(202602, 'VIC')
    assert.deepEqual(await rowsOf(rto, 'reportingPeriodNumber=202602'), [], 'nothing reported or declared yet')
    assert.equal(
      (
        await rto.assessor.declare(
          declarationBody({
            reportingPeriodNumber: 202602,
            jurisdiction: 'VIC',
            declarationType: 'Nil_activity_report',
            dateOfLastReportableActivity: '2026-03-31',
          }),
        )
      ).status,
      200,
    )
    assert.equal((await rto.assessor.declare(declarationBody({ reportingPeriodNumber: 202602 }))).status, 200)
    const rows = await rowsOf(rto, 'reportingPeriodNumber=202601,202602&sortOrder=Asc')
    assert.deepEqual(
      rows.map((r) => [r.reportingPeriodNumber, r.jurisdiction, r.declaration?.declarationType ?? null]),
      [
        [202601, 'NSW', null],
        [202601, 'VIC', null],
        [202602, 'NSW', 'Declaration'],
        [202602, 'VIC', 'Nil_activity_report'],
      ],
    )
    const declarationsOnly = await rowsOf(rto, 'reportingPeriodNumber=202602&declarationTypes=Declaration')
    assert.deepEqual(
      declarationsOnly.map((r) => [r.jurisdiction, r.declaration.declarationType]),
      [['NSW', 'Declaration']],
    )
    const both = await rowsOf(rto, 'reportingPeriodNumber=202602&declarationTypes=Declaration,Nil_activity_report')
    assert.equal(both.length, 2)
  })

  it('an RTO sees and makes only its own declarations: isolation between RTOs', async () => {
    const a = await readyRto(t)
    const b = await newRto(t)
    assert.equal((await a.assessor.declare(declarationBody())).status, 200)
    assert.deepEqual(
      (await rowsOf(b, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)).map((r) => r.declaration),
      [null],
    )
    const refused = await b.assessor.declare(declarationBody())
    assert.equal(refused.json.reason, 'assessment-not-requested', "A's assessment does not make B ready")
    assert.equal(
      (await rowsOf(a, `reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`))[0]!.declaration.declaredByClient,
      a.clientId,
    )
  })

  it('making or reading declarations needs the vet:declare scope (403 without it)', async () => {
    const token = await t.token('demo-rto-1', 'demo-secret-1', 'vet:report')
    const reporter = new Reporter(t.baseUrl, token)
    assert.equal((await reporter.request('POST', `${V1}/declaration`, declarationBody())).status, 403)
    assert.equal(
      (await reporter.request('POST', `${V1}/reporting-period/NSW/${PERIOD}/declaration`, declarationBody())).status,
      403,
    )
    assert.equal((await reporter.request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}`)).status, 403)
    assert.equal(
      (await new Reporter(t.baseUrl, 'not-a-token').request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}`))
        .status,
      401,
    )
  })
})
