// The job queue: jobs commit with the transaction that enqueues them, survive a restart, and
// handlers are safe to run twice (at-least-once delivery).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, pause, startTestService, waitFor, type TestService } from './support/index.ts'
import { pino } from 'pino'
import { findHousekeepingRun } from '../src/modules/housekeeping/index.ts'
import { createQueue, HEARTBEAT_JOB_EXPIRY_SECONDS, type JobDefinition } from '../src/platform/queue/queue.ts'
import { sql } from 'kysely'

describe('queue', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ service: { workers: true } })
  })
  after(() => t.close())

  it('a job that sends heartbeats is judged by them, not failed by the 15-minute expiry of an active job', async () => {
    // pg-boss fails an active job after its queue's expiry whatever its heartbeats say: a validation
    // longer than 15 minutes would be retried from the start for ever. Queues of heartbeat jobs carry
    // pg-boss's longest expiry; the others keep its default.
    const { rows } = await sql<{ name: string; expire_seconds: number; heartbeat_seconds: number | null }>`
      SELECT name, expire_seconds, heartbeat_seconds FROM pgboss.queue ORDER BY name`.execute(t.service.database.db)
    const withHeartbeats = rows.filter((row) => row.heartbeat_seconds !== null)
    assert.ok(
      withHeartbeats.some((row) => row.name === 'validate-batch'),
      JSON.stringify(rows.map((row) => row.name)),
    )
    for (const row of withHeartbeats) assert.equal(row.expire_seconds, HEARTBEAT_JOB_EXPIRY_SECONDS, row.name)
    for (const row of rows.filter((row) => row.heartbeat_seconds === null))
      assert.equal(row.expire_seconds, 900, row.name)
  })

  it('a job enqueued in a committed transaction runs', async () => {
    const { db } = t.service.database
    const jobId = await db
      .transaction()
      .execute((tx) => t.service.queue.enqueue(tx, t.service.jobs.housekeeping, { retentionDays: 90 }))
    assert.ok(jobId)
    await waitFor('the job ran', () => findHousekeepingRun(db, jobId))
  })

  it('a job enqueued in a rolled-back transaction never runs', async () => {
    const { db } = t.service.database
    let jobId: string | null = null
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        jobId = await t.service.queue.enqueue(tx, t.service.jobs.housekeeping, { retentionDays: 90 })
        throw new Error('roll back')
      }),
      /roll back/,
    )
    assert.ok(jobId, 'the job was enqueued inside the transaction')
    // A committed control job enqueued afterwards runs; by then the rolled-back one would have too.
    const control = await db
      .transaction()
      .execute((tx) => t.service.queue.enqueue(tx, t.service.jobs.housekeeping, { retentionDays: 90 }))
    await waitFor('the control job ran', () => findHousekeepingRun(db, control!))
    assert.equal(await findHousekeepingRun(db, jobId!), undefined)
    const row = await db
      .selectFrom('pgboss.job' as never)
      .select('id' as never)
      .where('id' as never, '=', jobId as never)
      .executeTakeFirst()
    assert.equal(row, undefined, 'no trace of the job in the queue table')
  })

  it('the housekeeping job removes token records expired beyond retention, and a redelivered job changes nothing twice', async () => {
    const { db } = t.service.database
    const old = new Date(Date.now() - 100 * 86_400_000)
    await db
      .insertInto('token_issuance')
      .values([
        { token_id: 'old-1', client_id: 'demo-rto-1', rto_id: '90001', issued_at: old, expires_at: old },
        { token_id: 'old-2', client_id: 'demo-rto-1', rto_id: '90001', issued_at: old, expires_at: old },
        {
          token_id: 'fresh',
          client_id: 'demo-rto-1',
          rto_id: '90001',
          issued_at: new Date(),
          expires_at: new Date(Date.now() + 60_000),
        },
      ])
      .execute()
    const job = { id: 'redelivered-job', name: 'housekeeping', data: { retentionDays: 90 } } as never
    await t.service.jobs.housekeeping.handle({ retentionDays: 90 }, job)
    await db
      .insertInto('token_issuance')
      .values({ token_id: 'old-3', client_id: 'demo-rto-1', rto_id: '90001', issued_at: old, expires_at: old })
      .execute()
    await t.service.jobs.housekeeping.handle({ retentionDays: 90 }, job) // the same job again
    const run = await findHousekeepingRun(db, 'redelivered-job')
    assert.equal(run?.token_issuances_removed, 2)
    const left = (await db.selectFrom('token_issuance').select('token_id').execute()).map((r) => r.token_id).sort()
    assert.ok(left.includes('fresh'))
    assert.ok(left.includes('old-3'), 'the second delivery did not run the clean-up again')
  })
})

describe('queue across a restart', () => {
  it('a job enqueued before the process stops runs after the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vetrs-restart-'))
    const database = await createTestDatabase(dataDir)
    try {
      const first = await startTestService({ database, service: { workers: false } })
      const jobId = await first.service.database.db
        .transaction()
        .execute((tx) => first.service.queue.enqueue(tx, first.service.jobs.housekeeping, { retentionDays: 90 }))
      assert.ok(jobId)
      assert.equal(await findHousekeepingRun(first.service.database.db, jobId), undefined)
      await first.close()

      const second = await startTestService({ database, service: { workers: true } })
      try {
        await waitFor('the job ran after the restart', () => findHousekeepingRun(second.service.database.db, jobId))
      } finally {
        await second.close()
      }
    } finally {
      await database.drop()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

// Issue 21: one RTO's long run must not stall another RTO's short one. Jobs that name their RTO form
// a pg-boss group per RTO: at most jobsPerRto of them run at once across every process, while the
// process runs up to jobsPerQueue jobs of the kind. The handlers here wait until the test lets them go,
// so what runs when is decided by the queue alone. The same RTO's second job is enqueued once its first
// is running: pg-boss counts a group's active jobs as it fetches, so two workers fetching at the same
// instant could both take a job of one RTO (docs/decisions.md, "Fairness between RTOs in the queue").
describe('queue fairness', () => {
  it("Fairness: another RTO's job runs while one RTO's long job runs, and one RTO's jobs take turns", async () => {
    const t = await startTestService({ service: { workers: false } })
    const started: string[] = []
    const finish = new Map<string, () => void>()
    const probe: JobDefinition<{ rto: string; name: string }> = {
      name: 'fairness-probe',
      retryLimit: 0,
      rtoOf: (data) => data.rto,
      handle: (data) =>
        new Promise<void>((resolve) => {
          started.push(data.name)
          finish.set(data.name, resolve)
        }),
    }
    const settings = { heartbeatSeconds: 30, superviseIntervalSeconds: 30, jobsPerQueue: 2, jobsPerRto: 1 }
    const queue = await createQueue(t.service.database, [probe], pino({ level: 'silent' }), undefined, settings)
    const { db } = t.service.database
    const enqueue = (rto: string, name: string) =>
      db.transaction().execute((tx) => queue.enqueue(tx, probe, { rto, name }))
    const running = (...names: string[]) =>
      waitFor(
        () => `${names.join(' and ')} running (started: ${started.join(', ')})`,
        () => (names.every((name) => started.includes(name)) ? true : undefined),
      )
    try {
      await enqueue('90001', 'large')
      await enqueue('90002', 'small')
      await queue.startWorkers()
      // Both slots: the other RTO's small job does not wait for the large one.
      await running('large', 'small')
      // While the large job runs, the same RTO's next job waits even with a slot free...
      await enqueue('90001', 'second of the same RTO')
      finish.get('small')!()
      await pause(2500)
      assert.deepEqual([...started].sort(), ['large', 'small'], 'the same RTO second job waits for its first')
      // ...and a later job of another RTO goes past it, into the free slot.
      await enqueue('90002', 'later small')
      await running('later small')
      assert.ok(!started.includes('second of the same RTO'), `started: ${started.join(', ')}`)
      finish.get('large')!()
      await running('second of the same RTO')
      finish.get('later small')!()
      finish.get('second of the same RTO')!()
    } finally {
      for (const release of finish.values()) release()
      await queue.stop()
      await t.close()
    }
  })
})
