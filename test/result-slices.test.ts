// Issue 30: a rule's results may be found in one statement and written in slices (platform/db/
// sliced-insert.ts; the embedded database's default, 1,000 rows a statement). A slice boundary must change
// nothing: with slices of two rows, a validation and an assessment store exactly the results, in the same
// order (seq) and grouping, that one statement per rule stores, on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { PERIOD, startTestService, type TestService } from './support/index.ts'
import { loadBatch } from '../bench/batch-loader.ts'
import { runValidation } from '../src/modules/validation/engine.ts'
import { runAssessment } from '../src/modules/assessment/assessment.engine.ts'
import { assessmentRules } from '../src/modules/assessment/index.ts'

const RTO = '90001'
const RECORDS = 600
const SLICE = 2

interface Stored {
  group: string
  rule: string
  resource_type: string
  resource_uid: string
  message: string
  detail: string
}

/**
 * A run's results in stored order (seq), each with its group told by where the group first appears
 * (grouping ids name the run, so two runs' ids differ; their partition of the results must not).
 */
function inOrder(rows: Stored[]): string[] {
  const groups = new Map<string, number>()
  return rows.map((row) => {
    if (!groups.has(row.group)) groups.set(row.group, groups.size)
    return `${groups.get(row.group)} ${row.rule} ${row.resource_type} ${row.resource_uid} ${row.message} ${row.detail}`
  })
}

describe('rule results written in slices (issue 30)', () => {
  let t: TestService
  let headers: { authorization: string }
  const db = () => t.service.database.db
  const v1 = () => `${t.baseUrl}/vet-provider/v1`

  before(async () => {
    // Workers off: the test runs each job itself, once with slices of two rows and once without.
    t = await startTestService({ service: { workers: false } })
    headers = { authorization: `Bearer ${await t.token('demo-rto-1')}` }
  })
  after(() => t?.close())

  /** Requests a validation of the batch and runs it with `resultSliceRows`; its results in stored order. */
  const validated = async (token: string, resultSliceRows: number | null) => {
    const requested = await fetch(`${v1()}/NSW/transaction-batch/${token}/validate`, { method: 'POST', headers })
    assert.equal(requested.status, 201, await requested.text())
    const { run_id: runId } = (
      await sql<{ run_id: string }>`
        SELECT run_id FROM validation_run WHERE rto_id = ${RTO} AND transaction_batch_token = ${token} AND status = 'Queued'`.execute(
        db(),
      )
    ).rows[0]!
    const deps = { db: db(), referenceLookup: t.service.referenceLookup, logger: t.service.logger, resultSliceRows }
    assert.equal(await runValidation(deps, RTO, runId), 'validated')
    // Read before the next run of the batch completes, which deletes this run's results.
    const { rows } = await sql<Stored>`
      SELECT x.validation_grouping_id::text AS "group", x.technical_rule_id AS rule, x.resource_type,
             x.resource_uid::text AS resource_uid, x.message,
             concat_ws(' ', x.related_validation_result_count, x.data_source, array_to_string(x.access_path, '.'),
                       x.change_tracking_identifier, x.validation_message_level) AS detail
        FROM validation_result x JOIN validation_run r USING (rto_id, run_id, attempt)
       WHERE x.rto_id = ${RTO} AND x.run_id = ${runId}::uuid AND r.status = 'Validated'
       ORDER BY x.seq`.execute(db())
    return rows
  }

  /** Requests an assessment of the period and runs it with `resultSliceRows`; its results in stored order. */
  const assessed = async (resultSliceRows: number | null) => {
    const requested = await fetch(`${v1()}/reporting-period/NSW/${PERIOD}/validate`, { method: 'POST', headers })
    assert.equal(requested.status, 201, await requested.text())
    const { run_id: runId } = (
      await sql<{ run_id: string }>`
        SELECT run_id FROM assessment_run WHERE rto_id = ${RTO} AND status = 'Queued'`.execute(db())
    ).rows[0]!
    const deps = { db: db(), logger: t.service.logger, rules: assessmentRules, resultSliceRows }
    assert.equal(await runAssessment(deps, RTO, runId), 'completed')
    const { rows } = await sql<Stored>`
      SELECT x.assessment_grouping_id::text AS "group", x.technical_rule_id AS rule, x.resource_type,
             x.resource_uid::text AS resource_uid, x.message,
             concat_ws(' ', x.change_tracking_identifier, x.submitted_by_client, x.message_level) AS detail
        FROM assessment_result x JOIN assessment_run r USING (rto_id, run_id, attempt)
       WHERE x.rto_id = ${RTO} AND x.run_id = ${runId}::uuid AND r.status = 'Completed'
       ORDER BY x.seq`.execute(db())
    return rows
  }

  it('an assessment in slices of two rows stores what one statement per rule stores, in the same order and groups', async () => {
    const { token } = await loadBatch(db(), RECORDS)
    await validated(token, null)
    const submitted = await fetch(`${v1()}/NSW/transaction-batch/${token}/submit`, { method: 'POST', headers })
    assert.equal(submitted.status, 200, await submitted.text())

    const whole = await assessed(null)
    const sliced = await assessed(SLICE)
    assert.ok(whole.length > 3 * SLICE, `results over several slices (${whole.length})`)
    assert.deepEqual(inOrder(sliced), inOrder(whole))
    const left = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE 'assessment_found_%' OR relname LIKE 'validation_found_%'`.execute(
      db(),
    )
    assert.equal(left.rows[0]!.n, 0, 'no temporary table is left behind')
  })

  it('by default an assessment reads a working copy of its period on the embedded database and the held data on PostgreSQL', async () => {
    // The data submitted by the test above.
    const requested = await fetch(`${v1()}/reporting-period/NSW/${PERIOD}/validate`, { method: 'POST', headers })
    assert.equal(requested.status, 201, await requested.text())
    const { run_id: runId } = (
      await sql<{ run_id: string }>`
        SELECT run_id FROM assessment_run WHERE rto_id = ${RTO} AND status = 'Queued'`.execute(db())
    ).rows[0]!
    const staged: number[] = []
    const afterRule = async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM assessment_stage WHERE rto_id = ${RTO} AND run_id = ${runId}::uuid`.execute(db())
      staged.push(rows[0]!.n)
    }
    const deps = { db: db(), logger: t.service.logger, rules: assessmentRules, afterRule }
    assert.equal(await runAssessment(deps, RTO, runId), 'completed')
    assert.equal(staged.length, assessmentRules.length)
    if (t.service.database.kind === 'pglite')
      assert.ok(
        staged.every((n) => n > 0),
        'the rules read the copy',
      )
    else assert.deepEqual(new Set(staged), new Set([0]), 'no copy on PostgreSQL')
  })

  it('a validation in slices of two rows stores what one statement per rule stores, in the same order and groups', async () => {
    // A batch whose set rules find many records: its subject offerings left out (every subject
    // enrolment's reference fails), and whose record rules find every student (a wrong USI check character).
    const { token: source } = await loadBatch(db(), RECORDS)
    const { rows: records } = await sql<{
      resource_type: string
      resource_uid: string
      change_tracking_identifier: string
      body: Record<string, unknown>
    }>`
      SELECT resource_type, resource_uid::text AS resource_uid, change_tracking_identifier, body FROM batch_record
       WHERE rto_id = ${RTO} AND transaction_batch_token = ${source} AND resource_type <> 'SubjectOffering'
       ORDER BY resource_type, resource_uid`.execute(db())
    const broken = records.map((r) => {
      const body = typeof r.body === 'string' ? JSON.parse(r.body) : r.body
      return r.resource_type === 'Student'
        ? { ...r, body: { ...body, uniqueStudentIdentifier: '7KQ3NHV8RN' } }
        : { ...r, body }
    })
    const { token } = await loadBatch(db(), broken.length, { rto: RTO, clientId: 'demo-rto-1' }, function* () {
      yield broken
    })

    const whole = await validated(token, null)
    const sliced = await validated(token, SLICE)
    const setResults = whole.filter((row) => row.detail.includes('subjectOfferingUID'))
    const recordResults = whole.filter((row) => row.rule === 'BRTS01200')
    assert.ok(setResults.length > 3 * SLICE, `a set rule's results over several slices (${setResults.length})`)
    assert.ok(recordResults.length > 3 * SLICE, `record rules' results over several slices (${recordResults.length})`)
    // Record rules' grouping ids are random (each finding its own group): the groups' order is compared.
    assert.deepEqual(inOrder(sliced), inOrder(whole))
  })
})
