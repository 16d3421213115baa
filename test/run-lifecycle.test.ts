// The run lifecycle (src/platform/runs/run-lifecycle.ts), driven directly against a migrated database
// for both of its tables: what at-least-once delivery and a worker dying mid-run may do to a run.
// A claim takes a run up as a new attempt, a stale attempt can neither complete nor have its results
// counted or kept, a fault ends the run, and a job delivered again after a final status changes nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'
import type { Db } from '../src/platform/db/database.ts'
import type { RunLifecycle, RunTableName } from '../src/platform/runs/run-lifecycle.ts'
import * as validation from '../src/modules/validation/validation-runs.repo.ts'
import { insertResults } from '../src/modules/validation/result-writes.repo.ts'
import * as assessment from '../src/modules/assessment/assessment.repo.ts'

const RTO = 'lifecycle-rto'
type Level = 'Error' | 'Warning'

/** What the tests need of one kind of run, besides its lifecycle. */
interface RunKind {
  name: string
  runTable: RunTableName
  resultTable: string
  runs: RunLifecycle<RunTableName>
  completed: string
  /** A new Queued run of the subject (a batch; a jurisdiction and period); a new subject when none is given. */
  newRun(db: Db, subject?: string): Promise<{ runId: string; subject: string }>
  /** Writes results of the attempt, one per level. */
  write(db: Db, runId: string, attempt: number, levels: Level[]): Promise<void>
  /** The column the claim records the attempt's basis in. */
  basisColumn: string
}

const kinds: RunKind[] = [
  {
    name: 'validation runs',
    runTable: 'validation_run',
    resultTable: 'validation_result',
    runs: validation.validationRuns,
    completed: 'Validated',
    basisColumn: 'content_version',
    async newRun(db, subject = randomUUID()) {
      await sql`INSERT INTO transaction_batch (rto_id, transaction_batch_token, jurisdiction, created_by_client)
                VALUES (${RTO}, ${subject}, 'NSW', 'test') ON CONFLICT DO NOTHING`.execute(db)
      const run = await validation.insertRun(db, { rto: RTO, runId: randomUUID(), token: subject, clientId: 'test' })
      return { runId: run.run_id, subject }
    },
    async write(db, runId, attempt, levels) {
      await insertResults(
        db,
        levels.map((level) => ({
          rto_id: RTO,
          run_id: runId,
          attempt,
          validation_grouping_id: randomUUID(),
          related_validation_result_count: 1,
          error_number: 'TEST',
          rule_id: 'TEST',
          technical_rule_id: 'TEST',
          validation_message_level: level,
          corrective_action: 'none',
          message: `attempt ${attempt}`,
          resource_type: 'Student',
          resource_uid: randomUUID(),
          access_path: ['$'],
          change_tracking_identifier: null,
          data_source: 'Transaction_batch',
        })),
      )
    },
  },
  {
    name: 'assessment runs',
    runTable: 'assessment_run',
    resultTable: 'assessment_result',
    runs: assessment.assessmentRuns,
    completed: 'Completed',
    basisColumn: 'basis_submission_seq',
    async newRun(db, subject = randomUUID()) {
      const run = await assessment.insertRun(
        db,
        { rto: RTO, jurisdiction: subject, period: 202601 },
        randomUUID(),
        'test',
      )
      return { runId: run.run_id, subject }
    },
    async write(db, runId, attempt, levels) {
      if (levels.length === 0) return
      await db
        .insertInto('assessment_result')
        .values(
          levels.map((level) => ({
            rto_id: RTO,
            run_id: runId,
            attempt,
            assessment_grouping_id: randomUUID(),
            technical_rule_id: 'TEST',
            rule_id: 'TEST',
            message_level: level,
            corrective_action: 'none',
            message: `attempt ${attempt}`,
            resource_type: 'Student',
            resource_uid: randomUUID(),
            change_tracking_identifier: null,
            submitted_by_client: 'test',
          })),
        )
        .execute()
    },
  },
]

interface RunState {
  status: string
  attempt: number
  started_at: string | null
  completed_at: string | null
  basis: string | null
  has_blocking_failures: boolean | null
  has_non_blocking_failures: boolean | null
  result_count: number | null
}

describe('run lifecycle', () => {
  let t: TestService
  let db: Db
  before(async () => {
    // Workers off: the tests are the only ones claiming runs.
    t = await startTestService({ service: { workers: false } })
    db = t.service.database.db
  })
  after(() => t.close())

  for (const kind of kinds) {
    const { runs } = kind
    const stateOf = async (runId: string): Promise<RunState> => {
      const result = await sql<RunState>`
        SELECT status, attempt, started_at::text, completed_at::text, ${sql.ref(kind.basisColumn)}::text AS basis,
               has_blocking_failures, has_non_blocking_failures, result_count
          FROM ${sql.table(kind.runTable)} WHERE rto_id = ${RTO} AND run_id = ${runId}`.execute(db)
      return result.rows[0]!
    }
    /** The attempts the run's result rows belong to, one entry per row, sorted. */
    const resultAttempts = async (runId: string): Promise<number[]> => {
      const result = await sql<{ attempt: number }>`
        SELECT attempt FROM ${sql.table(kind.resultTable)} WHERE rto_id = ${RTO} AND run_id = ${runId} ORDER BY attempt`.execute(
        db,
      )
      return result.rows.map((row) => row.attempt)
    }
    /** A run taken through a whole attempt to its completed status with the given results. */
    const completedRun = async (levels: Level[], subject?: string) => {
      const run = await kind.newRun(db, subject)
      const { attempt } = (await runs.claim(db, RTO, run.runId))!
      await kind.write(db, run.runId, attempt, levels)
      assert.equal(await runs.complete(db, RTO, run.runId, attempt), true)
      return { ...run, attempt }
    }

    describe(kind.name, () => {
      it('a claim takes a Queued run up as attempt 1 and records its basis; a run in a final status is not claimed', async () => {
        const { runId } = await kind.newRun(db)
        const queued = await stateOf(runId)
        assert.deepEqual([queued.status, queued.attempt, queued.started_at, queued.basis], ['Queued', 0, null, null])

        const claimed = await runs.claim(db, RTO, runId)
        assert.equal(claimed?.attempt, 1)
        assert.equal(claimed?.status, 'InProgress')
        const state = await stateOf(runId)
        assert.deepEqual([state.status, state.attempt], ['InProgress', 1])
        assert.notEqual(state.started_at, null)
        assert.notEqual(state.basis, null, 'the basis the attempt computes from is recorded')
        assert.equal(await runs.isLive(db, RTO, runId, 1), true)

        assert.equal(await runs.complete(db, RTO, runId, 1), true)
        assert.equal(await runs.claim(db, RTO, runId), undefined, 'a completed run is not claimed again')
        assert.equal((await stateOf(runId)).attempt, 1)
      })

      it('a second delivery while InProgress (the first worker presumed dead) takes the run over: the first attempt is no longer live', async () => {
        const { runId } = await kind.newRun(db)
        const first = (await runs.claim(db, RTO, runId))!.attempt
        const second = (await runs.claim(db, RTO, runId))!.attempt
        assert.deepEqual([first, second], [1, 2])
        assert.equal(await runs.isLive(db, RTO, runId, first), false)
        assert.equal(await runs.isLive(db, RTO, runId, second), true)
        // Two deliveries racing for the run each get an attempt of their own; only the last is live.
        const racing = await Promise.all([runs.claim(db, RTO, runId), runs.claim(db, RTO, runId)])
        assert.deepEqual(racing.map((run) => run?.attempt).sort(), [3, 4])
        assert.deepEqual(await Promise.all([3, 4].map((attempt) => runs.isLive(db, RTO, runId, attempt))), [
          false,
          true,
        ])
      })

      it('a stale attempt cannot complete and its results are never counted or kept; the live attempt completes with its own', async () => {
        const { runId } = await kind.newRun(db)
        const stale = (await runs.claim(db, RTO, runId))!.attempt
        await kind.write(db, runId, stale, ['Error', 'Error'])
        const live = (await runs.claim(db, RTO, runId))!.attempt
        await runs.deleteOtherAttempts(db, RTO, runId, live)
        assert.deepEqual(await resultAttempts(runId), [], 'the dead attempt left nothing behind')

        await kind.write(db, runId, stale, ['Error']) // the stale worker writes on before it notices
        assert.equal(await runs.checkpoint(db, RTO, runId, stale), false)
        assert.equal(await runs.complete(db, RTO, runId, stale), false)
        assert.deepEqual([(await stateOf(runId)).status, (await stateOf(runId)).attempt], ['InProgress', live])

        await kind.write(db, runId, live, ['Warning'])
        assert.equal(await runs.checkpoint(db, RTO, runId, live), true)
        assert.equal(await runs.complete(db, RTO, runId, live), true)
        const done = await stateOf(runId)
        assert.equal(done.status, kind.completed)
        assert.notEqual(done.completed_at, null)
        assert.deepEqual(
          [done.result_count, done.has_blocking_failures, done.has_non_blocking_failures],
          [1, false, true],
          "the indicators count the live attempt's results only",
        )
        await runs.deleteAttempt(db, RTO, runId, stale) // what the stale worker does at its checkpoint
        assert.deepEqual(await resultAttempts(runId), [live])
      })

      it('a job delivered again after completion changes nothing', async () => {
        const { runId, attempt } = await completedRun(['Error', 'Warning'])
        const before = await stateOf(runId)
        assert.deepEqual(
          [before.status, before.result_count, before.has_blocking_failures, before.has_non_blocking_failures],
          [kind.completed, 2, true, true],
        )
        assert.equal(await runs.claim(db, RTO, runId), undefined)
        assert.equal(await runs.complete(db, RTO, runId, attempt), false)
        assert.equal(await runs.checkpoint(db, RTO, runId, attempt), false)
        assert.deepEqual(await stateOf(runId), before)
        assert.deepEqual(await resultAttempts(runId), [attempt, attempt])
      })

      it('completing a run keeps its results counted per rule, in the order the rules first produced them; a run completed before they were kept is counted when read', async () => {
        const { runId } = await kind.newRun(db)
        const stale = (await runs.claim(db, RTO, runId))!.attempt
        await kind.write(db, runId, stale, ['Error', 'Error', 'Error']) // never counted: superseded
        const { attempt } = (await runs.claim(db, RTO, runId))!
        await kind.write(db, runId, attempt, ['Error', 'Warning', 'Warning'])
        const level = sql.ref(kind.runTable === 'validation_run' ? 'validation_message_level' : 'message_level')
        await sql`UPDATE ${sql.table(kind.resultTable)}
                     SET technical_rule_id = 'SECOND', rule_id = 'SECOND-RULE', resource_type = 'Program', corrective_action = 'fix it'
                   WHERE rto_id = ${RTO} AND run_id = ${runId} AND attempt = ${attempt} AND ${level} = 'Warning'`.execute(
          db,
        )
        assert.equal(await runs.complete(db, RTO, runId, attempt), true)
        const expected = [
          {
            technicalRuleId: 'TEST',
            ruleId: 'TEST',
            level: 'Error',
            correctiveAction: 'none',
            resourceTypes: ['Student'],
            results: 1,
          },
          {
            technicalRuleId: 'SECOND',
            ruleId: 'SECOND-RULE',
            level: 'Warning',
            correctiveAction: 'fix it',
            resourceTypes: ['Program'],
            results: 2,
          },
        ]
        const row = async () =>
          (
            await sql<{ rto_id: string; run_id: string; attempt: number; results_by_rule: unknown }>`
              SELECT rto_id, run_id, attempt, results_by_rule FROM ${sql.table(kind.runTable)}
               WHERE rto_id = ${RTO} AND run_id = ${runId}`.execute(db)
          ).rows[0]!
        const kept = await row()
        assert.notEqual(kept.results_by_rule, null, 'kept on the run')
        assert.deepEqual(await runs.resultsByRule(db, kept), expected)

        await sql`UPDATE ${sql.table(kind.runTable)} SET results_by_rule = NULL WHERE rto_id = ${RTO} AND run_id = ${runId}`.execute(
          db,
        )
        const older = await row()
        assert.equal(older.results_by_rule, null)
        assert.deepEqual(await runs.resultsByRule(db, older), expected, 'counted from the results when not kept')
      })

      it("completing a run discards the results of the subject's other runs, and no other subject's", async () => {
        const earlier = await completedRun(['Error'])
        const elsewhere = await completedRun(['Warning'])
        const later = await completedRun(['Warning', 'Warning'], earlier.subject)
        assert.deepEqual(await resultAttempts(earlier.runId), [])
        assert.deepEqual(await resultAttempts(elsewhere.runId), [1])
        assert.deepEqual(await resultAttempts(later.runId), [1, 1])
        assert.equal((await stateOf(earlier.runId)).status, kind.completed, 'the earlier run itself stays')
      })

      it('a cancelled run stops its attempt and is not claimed; a completed run is not cancelled', async () => {
        const queued = await kind.newRun(db)
        const running = await kind.newRun(db)
        const attempt = (await runs.claim(db, RTO, running.runId))!.attempt
        const done = await completedRun([])
        await runs.cancel(db, RTO, [queued.runId, running.runId, done.runId])
        assert.deepEqual(
          await Promise.all([queued, running, done].map(async ({ runId }) => (await stateOf(runId)).status)),
          ['Cancelled', 'Cancelled', kind.completed],
        )
        assert.equal(await runs.checkpoint(db, RTO, running.runId, attempt), false)
        assert.equal(await runs.complete(db, RTO, running.runId, attempt), false)
        assert.equal(await runs.claim(db, RTO, queued.runId), undefined)
        assert.equal(await runs.claim(db, RTO, running.runId), undefined)
      })
    })
  }

  describe('faults', () => {
    const runs = assessment.assessmentRuns
    const kind = kinds[1]!

    it('assessment runs: a fault ends the live attempt in Fault and drops its results; the run is not claimed or completed after', async () => {
      const { runId } = await kind.newRun(db)
      const attempt = (await runs.claim(db, RTO, runId))!.attempt
      await kind.write(db, runId, attempt, ['Warning'])
      assert.equal(await runs.fault(db, RTO, runId, attempt), true)
      const run = await db
        .selectFrom('assessment_run')
        .select(['status', 'completed_at'])
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow()
      assert.equal(run.status, 'Fault')
      assert.notEqual(run.completed_at, null)
      const kept = await db.selectFrom('assessment_result').select('attempt').where('run_id', '=', runId).execute()
      assert.deepEqual(kept, [])
      assert.equal(await runs.complete(db, RTO, runId, attempt), false)
      assert.equal(await runs.claim(db, RTO, runId), undefined, 'a job delivered again after a fault does nothing')
    })

    it('assessment runs: a stale attempt cannot fault the run another attempt took over', async () => {
      const { runId } = await kind.newRun(db)
      const stale = (await runs.claim(db, RTO, runId))!.attempt
      const live = (await runs.claim(db, RTO, runId))!.attempt
      await kind.write(db, runId, live, ['Error'])
      assert.equal(await runs.fault(db, RTO, runId, stale), false)
      assert.equal(await runs.isLive(db, RTO, runId, live), true)
      assert.equal(await runs.complete(db, RTO, runId, live), true)
      const run = await db
        .selectFrom('assessment_run')
        .select(['status', 'result_count'])
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow()
      assert.deepEqual(run, { status: 'Completed', result_count: 1 })
    })

    it('validation runs have no Fault (a technical error fails the job, and the queue retries it)', () => {
      assert.equal('fault' in validation.validationRuns, false)
      assert.equal('fault' in assessment.assessmentRuns, true)
    })
  })
})
