// Deep pages of a run's results start from the keys the run keeps (issue 32, "Performance": the
// results page at page 1980 of a 110,000-failure batch counted through every result before it). A
// completed validation keeps the seq of every 1,000th result; a page of failed-validation-results
// starts from the nearest one at or before it. What must hold: the kept keys are those results', and
// every page, at and around each kept key and past the end, is the one counting from the start gives.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'
import { failingStudents, loadBatch } from '../bench/batch-loader.ts'
import { runValidation } from '../src/modules/validation/engine.ts'
import { listResults } from '../src/modules/validation/result-pages.repo.ts'
import { RESULT_ANCHOR_EVERY } from '../src/platform/runs/run-lifecycle.ts'

const RTO = '90001'
// 2,100 students: 2,310 results (each a BRTS01200, one in ten a BRTS01180 too), over three kept keys.
const STUDENTS = 2100

describe('deep pages of failed results start from kept keys (issue 32)', () => {
  let t: TestService
  let headers: { authorization: string }
  const db = () => t.service.database.db

  before(async () => {
    // Workers off: the test runs the validation job itself, in slices of 300 rows (as a worker would
    // with RESULT_SLICE_ROWS), so a rule's results are written by several statements.
    t = await startTestService({ service: { workers: false } })
    headers = { authorization: `Bearer ${await t.token('demo-rto-1')}` }
  })
  after(() => t?.close())

  it('a validated run keeps every 1,000th key, and every page from them is the page counted from the start', async () => {
    const { token } = await loadBatch(db(), STUDENTS, undefined, failingStudents)
    const batch = `${t.baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
    const requested = await fetch(`${batch}/validate`, { method: 'POST', headers })
    assert.equal(requested.status, 201, await requested.text())
    const { run_id: runId } = (
      await sql<{ run_id: string }>`
        SELECT run_id FROM validation_run WHERE rto_id = ${RTO} AND transaction_batch_token = ${token}`.execute(db())
    ).rows[0]!
    const deps = {
      db: db(),
      referenceLookup: t.service.referenceLookup,
      logger: t.service.logger,
      resultSliceRows: 300,
    }
    assert.equal(await runValidation(deps, RTO, runId), 'validated')

    const run = await db()
      .selectFrom('validation_run')
      .selectAll()
      .where('rto_id', '=', RTO)
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow()
    const total = run.result_count!
    assert.equal(total, STUDENTS + STUDENTS / 10)
    const { rows: keys } = await sql<{ seq: string }>`
      SELECT x.seq::text AS seq FROM validation_result x
       WHERE x.rto_id = ${RTO} AND x.run_id = ${runId}::uuid ORDER BY x.seq`.execute(db())
    assert.equal(keys.length, total)
    // The kept keys: the results at positions 0, 1000 and 2000.
    assert.deepEqual(
      (run.result_anchors as unknown[]).map(String),
      [0, RESULT_ANCHOR_EVERY, 2 * RESULT_ANCHOR_EVERY].map((position) => keys[position]!.seq),
    )

    // At and around each kept key and at the end, the page is the one counted from the start (the same
    // run without its keys, as a run completed before they were kept is read).
    const unkept = { ...run, result_anchors: null }
    for (const offset of [1, 999, 1000, 1001, 1999, 2000, 2001, total - 7, total - 1, total, total + 5]) {
      const fromKeys = await listResults(db(), run, 7, offset)
      const counted = await listResults(db(), unkept, 7, offset)
      assert.deepEqual(fromKeys, counted, `offset ${offset}`)
      assert.deepEqual(
        fromKeys.map((row) => row.resource_uid),
        counted.map((row) => row.resource_uid),
      )
      assert.equal(fromKeys.length, Math.max(0, Math.min(7, total - offset)), `offset ${offset}`)
    }

    // Through the API: pages of 50 at a kept key, just before it, and the last, in stored order.
    const uidsAt = async (offset: number, limit: number) =>
      (
        await sql<{ uid: string }>`
          SELECT resource_uid::text AS uid FROM validation_result WHERE rto_id = ${RTO} AND run_id = ${runId}::uuid
           ORDER BY seq OFFSET ${offset} LIMIT ${limit}`.execute(db())
      ).rows.map((row) => row.uid)
    for (const pageNumber of [20, 21, 41, 47]) {
      const response = await fetch(`${batch}/failed-validation-results?pageSize=50&pageNumber=${pageNumber}`, {
        headers,
      })
      assert.equal(response.status, 200)
      const page = (await response.json()) as { numberOfResults: number; results: { resourceUID: string }[] }
      assert.equal(page.numberOfResults, total)
      assert.deepEqual(
        page.results.map((result) => result.resourceUID),
        await uidsAt((pageNumber - 1) * 50, 50),
        `page ${pageNumber}`,
      )
    }
  })
})
