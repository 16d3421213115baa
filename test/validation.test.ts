// Batch validation runs (spec: Batch validation status; States and transitions; Endpoints validate and
// failed-validation-results; Errors): Queued -> InProgress -> Validated through the queue, repeated and
// cancelled requests, staleness, results paging and fields, both route forms, RTO isolation.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { listResults } from '../src/modules/validation/result-pages.repo.ts'
import { allOf, minimalUnitRecord, Reporter, startTestService, V1, world, type TestService } from './support/index.ts'

describe('batch validation', () => {
  let t: TestService
  let r: Reporter
  let other: Reporter
  before(async () => {
    // Workers off: these tests decide when the queue's work happens, so Queued can be observed.
    t = await startTestService({ service: { workers: false } })
    r = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    other = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
  })
  after(() => t.close())

  const runQueuedJobs = async () => {
    // The job the POST enqueued runs as a worker would run it.
    const { runValidation } = await import('../src/modules/validation/engine.ts')
    const runs = await t.service.database.db
      .selectFrom('validation_run')
      .select(['rto_id', 'run_id'])
      .where('status', '=', 'Queued')
      .execute()
    for (const run of runs)
      await runValidation(
        { db: t.service.database.db, referenceLookup: t.service.referenceLookup, logger: t.service.logger },
        run.rto_id,
        run.run_id,
      )
  }

  it('POST validate answers 201 with validationStatus Queued and the job is enqueued in the same transaction', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    const response = await r.request('POST', r.batchPath(batch, '/validate'))
    assert.equal(response.status, 201, response.text)
    assert.equal(response.json.validationStatus, 'Queued')
    assert.equal(response.json.hasBlockingValidationFailures, false)
    assert.equal(response.json.isCurrent, true)
    const run = await t.service.database.db
      .selectFrom('validation_run')
      .select('run_id')
      .where('transaction_batch_token', '=', batch)
      .executeTakeFirstOrThrow()
    const jobs = await sql<{
      count: string
    }>`SELECT count(*)::text AS count FROM pgboss.job WHERE name = 'validate-batch' AND data->>'runId' = ${run.run_id}`.execute(
      t.service.database.db,
    )
    assert.equal(jobs.rows[0]!.count, '1')
    const status = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.equal(status.json.validationStatus, 'Queued')
  })

  it('a repeated POST while a run is Queued answers that run with 200 and queues nothing more', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    const first = await r.request('POST', r.batchPath(batch, '/validate'))
    const second = await r.request('POST', r.batchPath(batch, '/validate'))
    assert.deepEqual([first.status, second.status], [201, 200])
    assert.equal(second.json.requestedAt, first.json.requestedAt)
    const runs = await t.service.database.db
      .selectFrom('validation_run')
      .select('run_id')
      .where('transaction_batch_token', '=', batch)
      .execute()
    assert.equal(runs.length, 1)
  })

  it('GET validate before any request is 404 problem details; failed-validation-results too', async () => {
    const batch = await r.newBatch()
    const status = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.equal(status.status, 404)
    assert.match(status.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.match(status.json.detail, /No validation has been requested/)
    const results = await r.request('GET', r.batchPath(batch, '/failed-validation-results'))
    assert.equal(results.status, 404)
  })

  it('Errors 404: "no validation run yet" (/problems/no-validation-run) is told from "no such batch" (/problems/not-found) by the problem type', async () => {
    const batch = await r.newBatch()
    for (const rest of ['/validate', '/failed-validation-results']) {
      const noRun = await r.request('GET', r.batchPath(batch, rest))
      assert.deepEqual(
        [noRun.status, noRun.json.type, noRun.json.status],
        [404, '/problems/no-validation-run', 404],
        rest,
      )
      const noBatch = await r.request('GET', `${V1}/NSW/transaction-batch/no-such-batch${rest}`)
      assert.deepEqual([noBatch.status, noBatch.json.type], [404, '/problems/not-found'], rest)
    }
    const documented = await r.request('GET', '/problems/no-validation-run')
    assert.equal(documented.status, 200)
    assert.match(documented.json.description, /not-found/)
  })

  it('Queued -> Validated: the run validates the batch and sets the indicators', async () => {
    const w = await world()
    const batch = await r.batchWith([
      ...allOf(w),
      { segment: 'student', body: { ...w.student, emailAddressPrimary: undefined } },
    ])
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    const status = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.equal(status.json.validationStatus, 'Validated')
    assert.equal(status.json.hasBlockingValidationFailures, true)
    assert.equal(status.json.hasNonBlockingValidationFailures, false)
    assert.equal(status.json.numberOfResults, 1)
    assert.ok(status.json.startedAt <= status.json.completedAt)
  })

  it('DELETE validate cancels a Queued run (204): GET then reports the previous run, or 404 when there is none; a second DELETE is 409', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    await r.request('POST', r.batchPath(batch, '/validate'))
    const cancelled = await r.request('DELETE', r.batchPath(batch, '/validate'))
    assert.equal(cancelled.status, 204)
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).status, 404)
    const again = await r.request('DELETE', r.batchPath(batch, '/validate'))
    assert.equal(again.status, 409)
    assert.equal(again.json.reason, 'no-pending-validation')
    await runQueuedJobs() // the cancelled run's job finds nothing to do
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).status, 404)
  })

  it('DELETE validate of an InProgress run: the run is abandoned and its partial results are never promoted', async () => {
    const w = await world()
    const batch = await r.batchWith([{ segment: 'student', body: { ...w.student, emailAddressPrimary: undefined } }])
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    const first = await r.request('GET', r.batchPath(batch, '/failed-validation-results'))
    assert.equal(first.json.numberOfResults, 1)
    // A second run is taken up (InProgress) and then cancelled before it completes.
    await r.request('POST', r.batchPath(batch, '/validate'))
    const run = await t.service.database.db
      .selectFrom('validation_run')
      .select(['run_id'])
      .where('status', '=', 'Queued')
      .where('transaction_batch_token', '=', batch)
      .executeTakeFirstOrThrow()
    const { validationRuns } = await import('../src/modules/validation/validation-runs.repo.ts')
    await validationRuns.claim(t.service.database.db, '90001', run.run_id)
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).json.validationStatus, 'InProgress')
    assert.equal((await r.request('DELETE', r.batchPath(batch, '/validate'))).status, 204)
    const { runValidation } = await import('../src/modules/validation/engine.ts')
    const outcome = await runValidation(
      { db: t.service.database.db, referenceLookup: t.service.referenceLookup, logger: t.service.logger },
      '90001',
      run.run_id,
    )
    assert.equal(outcome, 'not-runnable')
    // The earlier completed run is what GET and the results report.
    const status = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.equal(status.json.validationStatus, 'Validated')
    const results = await r.request('GET', r.batchPath(batch, '/failed-validation-results'))
    assert.deepEqual(results.json, first.json)
  })

  it('a record changed after the run started makes the result stale: isCurrent false, and submit is refused until a new run completes', async () => {
    const w = await world()
    const batch = await r.batchWith(allOf(w))
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).json.isCurrent, true)
    await r.upload(batch, [{ segment: 'student', body: { ...w.student, changeTrackingIdentifier: 'v2' } }])
    const stale = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.deepEqual([stale.json.validationStatus, stale.json.isCurrent], ['Validated', false])
    const refused = await r.submit(batch)
    assert.equal(refused.status, 409)
    assert.equal(refused.json.reason, 'validation-stale')
    // A deletion is a change too.
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).json.isCurrent, true)
    assert.equal((await r.request('DELETE', r.batchPath(batch, `/student/${w.student.studentUID}`))).status, 204)
    assert.equal((await r.request('GET', r.batchPath(batch, '/validate'))).json.isCurrent, false)
  })

  it('submit is refused (409) before any validation, while the run is pending, and with blocking failures; each says which condition failed', async () => {
    const w = await world()
    const batch = await r.batchWith([
      ...allOf(w),
      { segment: 'student', body: { ...w.student, emailAddressPrimary: undefined } },
    ])
    assert.equal((await r.submit(batch)).json.reason, 'validation-not-requested')
    await r.request('POST', r.batchPath(batch, '/validate'))
    const pending = await r.submit(batch)
    assert.deepEqual([pending.status, pending.json.reason], [409, 'validation-pending'])
    await runQueuedJobs()
    const blocked = await r.submit(batch)
    assert.deepEqual([blocked.status, blocked.json.reason], [409, 'blocking-validation-failures'])
    assert.match(blocked.headers.get('content-type') ?? '', /^application\/problem\+json/)
  })

  it("failed-validation-results carries every field of the spec's Validation result table, paged in a stable order", async () => {
    const w = await world()
    // Two records with blocking failures: four results between them (below).
    const batch = await r.batchWith([
      { segment: 'student', body: { ...w.student, emailAddressPrimary: undefined } },
      { segment: 'subjectenrolment', body: { ...w.subjectEnrolment, activityEndDate: '2026-10-01' } },
    ])
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    const all = await r.request('GET', r.batchPath(batch, '/failed-validation-results?pageSize=500'))
    // Four: the student has no email while surveyAvailability asks for one (BRTS01180); the enrolment
    // ends before it starts (BRTS01300) and names an offering and a location that neither the batch nor
    // the held data has (BRTS02100 for each reference).
    assert.deepEqual(
      all.json.results
        .map((x: any) => `${x.resourceType} ${x.errorNumber} ${x.validationMessageLevel} ${x.accessPath.join(' ')}`)
        .sort(),
      [
        'Student BRTS01180 Error $.surveyAvailability $.emailAddressPrimary',
        'SubjectEnrolment BRTS01300 Error $.activityStartDate $.activityEndDate',
        'SubjectEnrolment BRTS02100 Error $.locations[0].deliveryLocationUID',
        'SubjectEnrolment BRTS02100 Error $.subjectOfferingUID',
      ],
    )
    assert.equal(all.json.numberOfResults, 4)
    const first = all.json.results[0]
    assert.deepEqual(Object.keys(first).sort(), [
      'accessPath',
      'changeTrackingIdentifier',
      'correctiveAction',
      'dataSource',
      'errorNumber',
      'message',
      'relatedValidationResultCount',
      'resourceType',
      'resourceUID',
      'ruleId',
      'technicalRuleId',
      'validationGroupingId',
      'validationMessageLevel',
    ])
    // Pages of 2 put together are the whole list, in the same order, every time.
    const paged = []
    const pages = Math.ceil(all.json.numberOfResults / 2)
    for (let page = 1; page <= pages; page++) {
      const response = await r.request(
        'GET',
        r.batchPath(batch, `/failed-validation-results?pageSize=2&pageNumber=${page}`),
      )
      assert.deepEqual([response.json.pageSize, response.json.numberOfPages], [2, pages])
      paged.push(...response.json.results)
    }
    assert.deepEqual(paged, all.json.results)
    const past = await r.request('GET', r.batchPath(batch, '/failed-validation-results?pageNumber=99'))
    assert.deepEqual([past.status, past.json.results], [200, []])
    const bad = await r.request('GET', r.batchPath(batch, '/failed-validation-results?pageSize=501'))
    assert.equal(bad.status, 400)

    // Filtered by rule (the console's filter), pages of 1 at every offset are the filtered list too.
    const db = t.service.database.db
    const run = await db
      .selectFrom('validation_run')
      .selectAll()
      .where('transaction_batch_token', '=', batch)
      .where('status', '=', 'Validated')
      .executeTakeFirstOrThrow()
    const rule = { technicalRuleId: all.json.results.at(-1).technicalRuleId as string }
    const filtered = await listResults(db, run, 500, 0, rule)
    assert.ok(filtered.length > 0 && filtered.every((row) => row.technical_rule_id === rule.technicalRuleId))
    const onePerPage = []
    for (let offset = 0; offset < filtered.length; offset++)
      onePerPage.push(...(await listResults(db, run, 1, offset, rule)))
    assert.deepEqual(onePerPage, filtered)
    assert.deepEqual(await listResults(db, run, 1, filtered.length, rule), [])
  })

  it('the older route forms without the jurisdiction segment validate, report and submit the same batch', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    const legacy = (rest: string) => `${V1}/transaction-batch/${batch}${rest}`
    assert.equal((await r.request('POST', legacy('/validate'))).status, 201)
    await runQueuedJobs()
    assert.equal((await r.request('GET', legacy('/validate'))).json.validationStatus, 'Validated')
    assert.equal((await r.request('GET', legacy('/failed-validation-results'))).status, 200)
    const submitted = await r.request('POST', legacy('/submit'))
    assert.equal(submitted.status, 200, submitted.text)
    assert.equal(submitted.json.status, 'Submitted')
  })

  it("another RTO's batch, or the batch under another jurisdiction, is 404 for validate, results and submit", async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    for (const [method, rest] of [
      ['POST', '/validate'],
      ['GET', '/validate'],
      ['DELETE', '/validate'],
      ['GET', '/failed-validation-results'],
      ['POST', '/submit'],
    ] as const) {
      assert.equal(
        (await other.request(method, r.batchPath(batch, rest))).status,
        404,
        `${method} ${rest} of another RTO`,
      )
      assert.equal(
        (await r.request(method, `${V1}/VIC/transaction-batch/${batch}${rest}`)).status,
        404,
        `${method} ${rest} under VIC`,
      )
    }
  })

  it('a submitted batch is closed: validate, cancel and submit again are 409 batch-submitted; uploads too', async () => {
    const batch = await r.batchWith(await minimalUnitRecord())
    await r.request('POST', r.batchPath(batch, '/validate'))
    await runQueuedJobs()
    assert.equal((await r.submit(batch)).status, 200)
    for (const [method, rest] of [
      ['POST', '/validate'],
      ['DELETE', '/validate'],
      ['POST', '/submit'],
    ] as const) {
      const response = await r.request(method, r.batchPath(batch, rest))
      assert.deepEqual([response.status, response.json.reason], [409, 'batch-submitted'], `${method} ${rest}`)
    }
    const w = await world()
    assert.equal((await r.request('POST', r.batchPath(batch, '/student'), w.student)).status, 409)
  })

  it('only the latest completed run keeps results, and a discarded batch takes its runs and results with it', async () => {
    const w = await world()
    const batch = await r.batchWith([{ segment: 'student', body: { ...w.student, emailAddressPrimary: undefined } }])
    const stored = async () => {
      const rows = await sql<{ runs: string; results: string }>`
        SELECT (SELECT count(*) FROM validation_run WHERE transaction_batch_token = ${batch})::text AS runs,
               (SELECT count(*) FROM validation_result x JOIN validation_run v USING (rto_id, run_id) WHERE v.transaction_batch_token = ${batch})::text AS results`.execute(
        t.service.database.db,
      )
      return rows.rows[0]
    }
    for (let i = 0; i < 2; i++) {
      await r.request('POST', r.batchPath(batch, '/validate'))
      await runQueuedJobs()
    }
    assert.deepEqual(await stored(), { runs: '2', results: '1' })
    assert.equal((await r.request('DELETE', r.batchPath(batch))).status, 204)
    assert.deepEqual(await stored(), { runs: '0', results: '0' })
  })
})
