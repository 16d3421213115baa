// Data quality assessments (spec: States and transitions, Data quality assessment status; Endpoints,
// Data quality assessment): every transition of the status table, including Fault from an injected
// technical error, cancel, invalidation by a submit during In Progress and after Validated, refused
// double requests, period bounds, both results paths, scope and isolation between RTOs.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  allOf,
  declarationBody,
  newRto,
  PERIOD,
  Reporter,
  startTestService,
  uploadsOf,
  waitFor,
  world,
  type Rto,
  type TestService,
  type Upload,
} from './support/index.ts'
import { twoStudentsOneUsi } from './golden/assessment-cases.ts'
import { defineAssessmentRule, type AssessmentFindingRow } from '../src/modules/assessment/index.ts'
import { currentReportingPeriod, nextPeriodOf } from '../src/domain/reporting-period.ts'

/** RTOs whose assessments hit a technical error (a query the database refuses to run). */
const faulting = new Set<string>()
const faultRule = defineAssessmentRule({
  technicalRuleId: 'TEST_FAULT',
  ruleId: 'TEST_FAULT',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'test: a technical error on demand',
  description: "Fails with division by zero for the RTOs in the test's faulting set.",
  correctiveAction: 'none',
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT 'k' AS group_key, 'Student' AS resource_type, gen_random_uuid() AS resource_uid, NULL AS change_tracking_identifier,
           'x' AS submitted_by_client, 'x' AS message
      FROM (SELECT 1 / (CASE WHEN ${faulting.has(scope.rto)} THEN 0 ELSE 1 END) AS boom) AS f
     WHERE f.boom = 0`,
})

/** Runs of these RTOs wait after their first rule, In Progress, until the test releases them. */
const held = new Map<string, { reached: () => void; release: Promise<void> }>()

function hold(rto: string): { reached: Promise<void>; release: () => void } {
  let reached!: () => void
  let release!: () => void
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve
  })
  held.set(rto, {
    reached,
    release: new Promise<void>((resolve) => {
      release = () => {
        held.delete(rto)
        resolve()
      }
    }),
  })
  // A test that fails before releasing must not hold the worker for the tests after it.
  setTimeout(() => release(), 20_000).unref()
  return { reached: reachedPromise, release }
}

async function afterRule(technicalRuleId: string, scope: { rto: string }): Promise<void> {
  const gate = held.get(scope.rto)
  if (!gate || technicalRuleId !== 'DQTS10010') return
  gate.reached()
  await gate.release
}

/** An enrolment of the period: submitting it counts as new data for 202604 NSW. */
const newActivity = (w: Awaited<ReturnType<typeof world>>): Upload[] => allOf(w)
const implausibleStudent = (w: Awaited<ReturnType<typeof world>>): Upload[] => [
  { segment: 'student', body: { ...w.student, dateOfBirth: '2022-01-01' } },
  ...allOf(w).slice(1),
]

describe('data quality assessments', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ assessment: { extraRules: [faultRule], afterRule } })
  })
  after(() => t.close())

  it('Required when no assessment has been requested: indicators false, results 404', async () => {
    const { assessor } = await newRto(t)
    const status = await assessor.status()
    assert.equal(status.status, 200, status.text)
    assert.equal(status.json.assessmentStatus, 'Required')
    assert.deepEqual(
      [
        status.json.hasBlockingFailures,
        status.json.hasNonBlockingFailures,
        status.json.resultsAreCurrent,
        status.json.numberOfResults,
      ],
      [false, false, false, 0],
    )
    assert.deepEqual(
      [status.json.reportingPeriodNumber, status.json.jurisdiction, status.json.requestedAt, status.json.completedAt],
      [PERIOD, 'NSW', null, null],
    )
    assert.ok(status.json.messages.length > 0)
    const results = await assessor.request('GET', assessor.path('NSW', PERIOD, '/failed-validation-results'))
    assert.deepEqual(
      [results.status, results.json.type],
      [404, '/problems/no-assessment-run'],
      'no completed assessment is its own problem type, not /problems/not-found',
    )
  })

  it('Required -> POST validate -> Queued (201 with the initial status) -> In Progress -> Validated; the minimal unit record assesses clean', async () => {
    const { rto, reporter, assessor } = await newRto(t)
    await reporter.submitted(allOf(await world()))
    const gate = hold(rto)
    const requested = await assessor.request('POST', assessor.path('NSW', PERIOD, '/validate'))
    assert.equal(requested.status, 201, requested.text)
    assert.equal(requested.json.assessmentStatus, 'Queued')
    await gate.reached
    assert.equal((await assessor.status()).json.assessmentStatus, 'In Progress')
    gate.release()
    const done = await assessor.waitForFinished()
    assert.equal(done.assessmentStatus, 'Validated')
    assert.deepEqual(
      [done.hasBlockingFailures, done.hasNonBlockingFailures, done.resultsAreCurrent, done.numberOfResults],
      [false, false, true, 0],
    )
    assert.ok(done.completedAt)
    assert.deepEqual(await assessor.results(), [])
  })

  it('refused double requests: POST validate while an assessment is Queued or In Progress is 409 assessment-in-progress', async () => {
    const { rto, assessor } = await newRto(t)
    const gate = hold(rto)
    await assessor.request201()
    const again = await assessor.request('POST', assessor.path('NSW', PERIOD, '/validate')) // Queued or already In Progress: both refused
    assert.equal(again.status, 409, again.text)
    assert.equal(again.json.reason, 'assessment-in-progress')
    await gate.reached
    const whileInProgress = await assessor.request('POST', assessor.path('NSW', PERIOD, '/validate'))
    assert.equal(whileInProgress.status, 409)
    assert.match(whileInProgress.headers.get('content-type') ?? '', /^application\/problem\+json/)
    gate.release()
    assert.equal((await assessor.waitForFinished()).assessmentStatus, 'Validated')
    assert.equal(
      (await assessor.request('POST', assessor.path('NSW', PERIOD, '/validate'))).status,
      201,
      'Validated -> POST validate is allowed',
    )
    await assessor.waitForFinished()
  })

  it('In Progress -> DELETE validate -> Required: incomplete results are not promoted, the earlier completed results stay readable', async () => {
    const { rto, reporter, assessor } = await newRto(t)
    await reporter.submitted(implausibleStudent(await world()))
    const first = await assessor.assess()
    assert.deepEqual(
      first.results.map((r) => r.technicalRuleId),
      ['DQTS10090'],
    )
    const gate = hold(rto)
    await assessor.request201()
    await gate.reached
    const cancelled = await assessor.request('DELETE', assessor.path('NSW', PERIOD, '/validate'))
    assert.equal(cancelled.status, 204, cancelled.text)
    const status = (await assessor.status()).json
    assert.equal(status.assessmentStatus, 'Required')
    assert.match(status.messages.join(' '), /cancelled/)
    assert.deepEqual(
      [status.numberOfResults, status.hasNonBlockingFailures],
      [1, true],
      'indicators of the earlier completed assessment',
    )
    gate.release()
    // The released worker finds its run cancelled and ends its job: wait for the job itself to finish.
    await waitFor('the released assessment job finished', async () => {
      const { rows } = await sql`SELECT 1 FROM pgboss.job WHERE name = 'assessment' AND data->>'rto' = ${rto}
                                   AND state NOT IN ('completed', 'cancelled', 'failed')`.execute(t.service.database.db)
      return rows.length === 0 ? true : undefined
    })
    assert.equal((await assessor.status()).json.assessmentStatus, 'Required')
    assert.deepEqual(await assessor.results(), first.results)
    const nothing = await assessor.request('DELETE', assessor.path('NSW', PERIOD, '/validate'))
    assert.equal(nothing.status, 409)
    assert.equal(nothing.json.reason, 'no-pending-assessment')
  })

  it('Queued -> DELETE validate -> Required (workers stopped, so the run stays Queued)', async () => {
    const idle = await startTestService({ service: { workers: false } })
    try {
      const { assessor } = await newRto(idle)
      await assessor.request201()
      assert.equal((await assessor.status()).json.assessmentStatus, 'Queued')
      assert.equal((await assessor.request('DELETE', assessor.path('NSW', PERIOD, '/validate'))).status, 204)
      assert.equal((await assessor.status()).json.assessmentStatus, 'Required')
      assert.equal(
        (await assessor.request('POST', assessor.path('NSW', PERIOD, '/validate'))).status,
        201,
        'a new request after cancel',
      )
    } finally {
      await idle.close()
    }
  })

  it('In Progress -> processing completes after data was submitted for the period -> Required, with the results readable', async () => {
    const { rto, reporter, assessor } = await newRto(t)
    await reporter.submitted(implausibleStudent(await world()))
    const gate = hold(rto)
    await assessor.request201()
    await gate.reached
    await reporter.submitted(newActivity(await world()))
    gate.release()
    const done = await assessor.waitForFinished()
    assert.equal(done.assessmentStatus, 'Required')
    assert.equal(done.resultsAreCurrent, false)
    assert.match(done.messages.join(' '), /submitted/)
    assert.ok(done.completedAt)
    const results = await assessor.results()
    assert.ok(
      results.some((r) => r.technicalRuleId === 'DQTS10090'),
      'results of the completed run are readable',
    )
    const refused = await assessor.declare(declarationBody())
    assert.equal(refused.status, 409)
    assert.equal(refused.json.reason, 'assessment-not-validated')
  })

  it('Validated -> new data submitted for the period -> Required; data for another jurisdiction leaves it Validated', async () => {
    const { reporter, assessor } = await newRto(t)
    await reporter.submitted(allOf(await world()))
    await assessor.assess()
    const victorian = new Reporter(t.baseUrl, reporter.token, 'VIC')
    await victorian.submitted(allOf(await world()))
    assert.equal((await assessor.status()).json.assessmentStatus, 'Validated')
    await reporter.submitted(
      uploadsOf(await world(), 'student', 'location', 'subject', 'subjectOffering', 'subjectEnrolment'),
    )
    const status = (await assessor.status()).json
    assert.equal(status.assessmentStatus, 'Required')
    assert.equal(status.resultsAreCurrent, false)
  })

  it('In Progress -> technical error -> Fault, no results kept; a new request retries', async () => {
    const { rto, reporter, assessor } = await newRto(t)
    await reporter.submitted(allOf(await world()))
    faulting.add(rto)
    await assessor.request201()
    const failed = await assessor.waitForFinished()
    assert.equal(failed.assessmentStatus, 'Fault')
    assert.match(failed.messages.join(' '), /technical error/)
    assert.equal(
      (await assessor.request('GET', assessor.path('NSW', PERIOD, '/failed-validation-results'))).status,
      404,
    )
    const refused = await assessor.declare(declarationBody())
    assert.equal(refused.json.reason, 'assessment-not-validated')
    faulting.delete(rto)
    await assessor.request201()
    assert.equal((await assessor.waitForFinished()).assessmentStatus, 'Validated')
  })

  it('Validated status messages match the indicators: "cannot be declared" with an Error outcome, "can be declared" with Warnings only or none, and declaring agrees', async () => {
    const scenarios: [
      string,
      (w: Awaited<ReturnType<typeof world>>, extra: Awaited<ReturnType<typeof world>>) => Upload[][],
      boolean,
      boolean,
      RegExp,
      number,
    ][] = [
      [
        'no outcome',
        (w) => [newActivity(w)],
        false,
        false,
        /has no failed outcome, so the period can be declared/,
        200,
      ],
      [
        'a Warning only',
        (w) => [implausibleStudent(w)],
        false,
        true,
        /has no blocking outcome, so the period can be declared; its Warning outcomes do not block/,
        200,
      ],
      [
        'an Error',
        twoStudentsOneUsi,
        true,
        false,
        /has blocking outcomes \(AssessmentMessageLevel Error\), so the period cannot be declared/,
        409,
      ],
    ]
    for (const [name, submitted, blocking, nonBlocking, message, declareStatus] of scenarios) {
      const { reporter, assessor } = await newRto(t)
      for (const batch of submitted(await world(), await world())) await reporter.submitted(batch)
      const { status } = await assessor.assess()
      assert.deepEqual([status.hasBlockingFailures, status.hasNonBlockingFailures], [blocking, nonBlocking], name)
      const said = status.messages.join(' ')
      assert.match(said, message, name)
      if (blocking)
        assert.doesNotMatch(said, /can be declared/, `${name}: no message may say the period can be declared`)
      assert.equal((await assessor.declare(declarationBody())).status, declareStatus, name)
    }
  })

  it('a failure counts as corrected only when the data is resubmitted, a new assessment runs, and the outcome no longer appears', async () => {
    const { reporter, assessor } = await newRto(t)
    const w = await world()
    await reporter.submitted(implausibleStudent(w))
    assert.equal((await assessor.assess()).results.filter((r) => r.technicalRuleId === 'DQTS10090').length, 1)
    await reporter.submitted(uploadsOf(w, 'student', 'subjectEnrolment'))
    assert.equal((await assessor.status()).json.assessmentStatus, 'Required')
    assert.equal(
      (await assessor.results()).filter((r) => r.technicalRuleId === 'DQTS10090').length,
      1,
      'not corrected until assessed again',
    )
    assert.deepEqual((await assessor.assess()).results, [])
  })

  it("failed outcomes carry every field of the spec's table, on both spellings of the path", async () => {
    const { reporter, assessor } = await newRto(t)
    const w = await world()
    await reporter.submitted(implausibleStudent(w))
    const { results } = await assessor.assess()
    const first = results[0]!
    assert.deepEqual(Object.keys(first).sort(), [
      'AssessmentGroupingId',
      'AssessmentMessageLevel',
      'changeTrackingIdentifier',
      'correctiveAction',
      'dataOwner',
      'message',
      'resourceType',
      'resourceUID',
      'ruleId',
      'technicalRuleId',
    ])
    assert.deepEqual(
      [first.resourceType, first.resourceUID, first.changeTrackingIdentifier, first.dataOwner],
      ['Student', w.student.studentUID, w.student.changeTrackingIdentifier, true],
    )
    assert.deepEqual(await assessor.results(PERIOD, 'NSW', 'failed-Assessment-results'), results)
    const page = await assessor.request('GET', assessor.path('NSW', PERIOD, '/failed-validation-results?pageSize=501'))
    assert.equal(page.status, 400)
  })

  it('reporting periods run from 202601 to the current quarter; others are 400', async () => {
    const { assessor } = await newRto(t)
    for (const period of ['202504', '202605', String(nextPeriodOf(currentReportingPeriod())), '2026Q4', '20261']) {
      const response = await assessor.request('POST', assessor.path('NSW', period, '/validate'))
      assert.equal(response.status, 400, `${period}: ${response.text}`)
      assert.equal((await assessor.status(period)).status, 400)
    }
    assert.equal(
      (await assessor.request('GET', assessor.path('XX', PERIOD, '/validate'))).status,
      400,
      'unknown jurisdiction',
    )
    assert.equal((await assessor.status(202601)).json.assessmentStatus, 'Required')
  })

  it('an RTO sees only its own assessment and data: isolation between RTOs', async () => {
    const a: Rto = await newRto(t)
    const b: Rto = await newRto(t)
    await a.reporter.submitted(implausibleStudent(await world()))
    await a.assessor.assess()
    assert.equal((await b.assessor.status()).json.assessmentStatus, 'Required')
    assert.equal(
      (await b.assessor.request('GET', b.assessor.path('NSW', PERIOD, '/failed-validation-results'))).status,
      404,
    )
    await b.reporter.submitted(allOf(await world()))
    assert.deepEqual((await b.assessor.assess()).results, [], "B's assessment does not see A's implausible student")
    assert.equal(
      (await a.assessor.status()).json.assessmentStatus,
      'Validated',
      "B's submission does not touch A's assessment",
    )
  })

  it('assessments need the vet:declare scope', async () => {
    const token = await t.token('demo-rto-1', 'demo-secret-1', 'vet:report')
    const reporter = new Reporter(t.baseUrl, token)
    assert.equal(
      (await reporter.request('POST', `/vet-provider/v1/reporting-period/NSW/${PERIOD}/validate`)).status,
      403,
    )
    assert.equal(
      (await reporter.request('GET', `/vet-provider/v1/reporting-period/NSW/${PERIOD}/validate`)).status,
      403,
    )
  })
})
