// The job queue: jobs commit with the transaction that enqueues them, survive a restart, and
// handlers are safe to run twice (at-least-once delivery).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, startTestService, waitFor, type TestService } from './support/index.ts'
import { findHousekeepingRun } from '../src/modules/housekeeping/index.ts'

describe('queue', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ service: { workers: true } })
  })
  after(() => t.close())

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
