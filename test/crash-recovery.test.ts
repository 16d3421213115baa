// Crash recovery (issue: a crash of a worker mid-run leaves the run to be retried, never stuck
// InProgress and never with duplicated results; submit is atomic even if the process dies mid-way).
// The service runs as a real OS process on a database that outlives it, and is killed with SIGKILL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import {
  createTestDatabase,
  onPostgres,
  pause,
  Reporter,
  startChildService,
  startTestService,
  tokenFor,
  waitFor,
  world,
  type ChildService,
  type TestDatabase,
} from './support/index.ts'

const RECORDS = 1500
/** i as three letters, so every student has a name of its own (no duplicate-student warnings). */
const letters = (i: number) =>
  [i % 26, Math.floor(i / 26) % 26, Math.floor(i / 676)].map((n) => String.fromCharCode(97 + n)).join('')

describe('crash recovery', () => {
  let dataDir: string
  let database: TestDatabase
  let env: Record<string, string>
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vetrs-crash-'))
    database = await createTestDatabase(onPostgres ? 'memory://' : dataDir)
    // Short heartbeats and supervision, so a dead worker's job is retried within seconds; one record
    // per chunk, so that a run of a few hundred records lasts long enough to be killed half-way.
    env = {
      ...database.env,
      QUEUE_HEARTBEAT_SECONDS: '10',
      QUEUE_SUPERVISE_INTERVAL_SECONDS: '1',
      VALIDATION_CHUNK_SIZE: '1',
      RATE_LIMIT_MAX: '0',
    }
  })
  after(async () => {
    await database.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  const reporterFor = async (child: ChildService) => new Reporter(child.baseUrl, await tokenFor(child.baseUrl))

  /** RECORDS students uploaded eight at a time; with `email: false` each fails BRTS01180 once. */
  const studentsBatch = async (r: Reporter, email: boolean) => {
    const batch = await r.newBatch()
    const w = await world()
    const students = Array.from({ length: RECORDS }, (_, i) => ({
      segment: 'student',
      body: {
        ...w.student,
        studentUID: randomUUID(),
        familyName: `${w.student.familyName}${letters(i)}`,
        ...(email ? {} : { emailAddressPrimary: undefined }),
      },
    }))
    for (let i = 0; i < students.length; i += 8)
      await Promise.all(students.slice(i, i + 8).map((upload) => r.upload(batch, [upload])))
    return { batch, students }
  }

  /** Waits until the batch's run has written results (PostgreSQL: the database is shared with the child). */
  const firstResultsWritten = async (batch: string) => {
    const client = new pg.Client({ connectionString: database.env.DATABASE_URL })
    await client.connect()
    try {
      await waitFor(
        'the first results written',
        async () => {
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM validation_result v JOIN validation_run r USING (rto_id, run_id)
              WHERE r.transaction_batch_token = $1`,
            [batch],
          )
          return rows[0]!.n > 0 ? true : undefined
        },
        { intervalMs: 5 },
      )
    } finally {
      await client.end()
    }
  }

  /** The killed run is InProgress with some of its records' results written and not all: it died mid-run. */
  const assertKilledMidRun = async (batch: string) => {
    const look = await startTestService({ database, service: { workers: false } })
    try {
      const { rows } = await sql<{ status: string; results: number }>`
        SELECT r.status, (SELECT count(*)::int FROM validation_result v WHERE v.run_id = r.run_id) AS results
          FROM validation_run r WHERE r.transaction_batch_token = ${batch}`.execute(look.service.database.db)
      assert.equal(rows.length, 1)
      assert.equal(rows[0]!.status, 'InProgress', 'the run was killed before it ended')
      assert.ok(rows[0]!.results > 0, 'the kill landed after the first results were written')
      assert.ok(
        rows[0]!.results < RECORDS,
        `the kill landed before the last result (${rows[0]!.results} of ${RECORDS})`,
      )
    } finally {
      await look.close()
    }
  }

  // Bounds, not timings: two child services started (each may take 180 s at full CI load:
  // support/child-service.ts) and a validation waited on (120 s).
  it('a worker killed mid-run: the run is retried and completes, never stuck InProgress, with no duplicated results', {
    timeout: 540_000,
  }, async () => {
    const first = await startChildService(env)
    let r: Reporter
    let batch: string
    try {
      r = await reporterFor(first)
      batch = (await studentsBatch(r, false)).batch
      assert.equal((await r.request('POST', r.batchPath(batch, '/validate'))).status, 201)
      await waitFor(
        'the run InProgress',
        async () => {
          const status = (await r.request('GET', r.batchPath(batch, '/validate'))).json
          assert.notEqual(status.validationStatus, 'Validated', 'the run ended before it could be killed')
          return status.validationStatus === 'InProgress' ? true : undefined
        },
        { intervalMs: 5 },
      )
      // One record a chunk, each committed with its result: the kill waits for the first results. On
      // PostgreSQL they are read from the database itself, as they commit; the embedded database is the
      // child's alone, so there a pause stands in (a quarter of a second in, some of the 1,500 are
      // written and most are not). Checked below either way: a kill at the start or the end fails.
      if (onPostgres) await firstResultsWritten(batch)
      else await pause(250)
    } finally {
      await first.crash()
    }
    await assertKilledMidRun(batch)

    // The restarted service validates in large chunks: what is tested is the retry of the killed run.
    const second = await startChildService({ ...env, VALIDATION_CHUNK_SIZE: '2000' })
    try {
      r = await reporterFor(second)
      const status = await r.waitForValidated(batch, 120_000)
      assert.equal(status.numberOfResults, RECORDS)
      const results = await r.allResults(batch)
      assert.equal(results.length, RECORDS)
      assert.equal(new Set(results.map((result) => result.resourceUID)).size, RECORDS, 'each record reported once')
      assert.ok(results.every((result) => result.errorNumber === 'BRTS01180'))
    } finally {
      await second.stop()
    }
  })

  // A bound, not a timing: two child services started (each may take 180 s at full CI load) and a
  // batch submitted and resubmitted; 180 s was passed once (twelfth session).
  it('a server killed mid-submit: the batch is either wholly submitted or not at all, and can be submitted after the restart', {
    timeout: 540_000,
  }, async () => {
    const first = await startChildService({ ...env, VALIDATION_CHUNK_SIZE: '2000' })
    let r: Reporter
    let batch: string
    let students: { body: Record<string, unknown> }[]
    try {
      r = await reporterFor(first)
      ;({ batch, students } = await studentsBatch(r, true))
      const { status } = await r.validate(batch)
      assert.equal(status.hasBlockingValidationFailures, false)
      const submitting = r.submit(batch).catch(() => undefined) // the connection dies with the process
      await pause(Math.floor(Math.random() * 40)) // killed at a random point of the submit
      await first.crash()
      // The submit of 1,500 records outlasts 40 ms: an answer here means the kill came after it ended.
      assert.equal(await submitting, undefined, 'the kill landed before the submit answered')
    } finally {
      await first.crash()
    }

    const second = await startChildService(env)
    try {
      r = await reporterFor(second)
      const state = (await r.request('GET', r.batchPath(batch))).json.status
      const held = await Promise.all(
        [students[0]!, students[RECORDS - 1]!].map((s) => r.heldState('student', String(s.body.studentUID))),
      )
      const expected = state === 'Submitted' ? 'In submission' : 'Not found in submission'
      assert.deepEqual(
        held.map((h) => h.stateInSubmission),
        [expected, expected],
        `batch ${state}`,
      )
      if (state === 'NotSubmitted') assert.equal((await r.submit(batch)).status, 200)
    } finally {
      await second.stop()
    }
    // Every record of the batch is held exactly once: nothing half-applied, nothing lost.
    const check = await startTestService({ database, service: { workers: false } })
    try {
      const rows = await check.service.database.db
        .selectFrom('held_record')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('transaction_batch_token', '=', batch)
        .executeTakeFirstOrThrow()
      assert.equal(Number(rows.count), RECORDS)
    } finally {
      await check.close()
    }
  })
})

// The embedded database indexes a submission for reconciliation in steps, each its own transaction
// (reconciliation-index-steps.repo.ts): a process killed between or inside them must resume from the
// progress kept and end with the index an uninterrupted run makes. On PostgreSQL the indexing is one
// transaction (nothing to resume: test/reconciliation-steps.test.ts covers its steps there by a hook).
describe('crash recovery of the reconciliation indexing in steps', {
  skip: onPostgres && 'one transaction on PostgreSQL',
}, () => {
  let dataDir: string
  let database: TestDatabase
  let env: Record<string, string>
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vetrs-crash-index-'))
    database = await createTestDatabase(dataDir)
    // A record a slice: the 1,500-record indexing takes thousands of steps, so a kill lands inside it.
    env = {
      ...database.env,
      QUEUE_HEARTBEAT_SECONDS: '10',
      QUEUE_SUPERVISE_INTERVAL_SECONDS: '1',
      RECONCILIATION_SLICE_RECORDS: '1',
      RATE_LIMIT_MAX: '0',
    }
  })
  after(async () => {
    await database.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  /** The demo RTO's kept progress and index of the students, read with no job running. */
  const look = async (uids: string[]) => {
    const check = await startTestService({ database, service: { workers: false } })
    try {
      const db = check.service.database.db
      const progress = await sql<{ step: string }>`SELECT step FROM reconciliation_progress`.execute(db)
      const items = await sql<{ day: string; n: number }>`
        SELECT student_activity_date::text AS day, count(*)::int AS n FROM reconciliation_item
         WHERE resource_type = 'Student' AND resource_uid = ANY(${uids}::uuid[]) GROUP BY 1`.execute(db)
      const submitted = await sql<{ day: string }>`
        SELECT DISTINCT (submitted_at AT TIME ZONE 'UTC')::date::text AS day FROM held_current
         WHERE resource_type = 'Student' AND resource_uid = ANY(${uids}::uuid[])`.execute(db)
      const counts = await sql<{ day: string; n: number }>`
        SELECT c.student_activity_date::text AS day, c.items AS n FROM reconciliation_day_count c
         WHERE c.resource_type = 'Student' AND c.rto_id = (SELECT rto_id FROM held_current WHERE resource_uid = ${uids[0]}::uuid)`.execute(
        db,
      )
      return {
        progress: progress.rows.map((row) => row.step),
        items: items.rows,
        submitted: submitted.rows,
        counts: counts.rows,
      }
    } finally {
      await check.close()
    }
  }

  // A bound, not a timing: two child services started (each may take 180 s at full CI load) and an
  // indexing waited on (120 s).
  it('a server killed while it indexes a submission resumes from its kept progress and ends with every item counted once', {
    timeout: 540_000,
  }, async () => {
    const first = await startChildService(env)
    const students = Array.from({ length: RECORDS }, () => randomUUID())
    let batch = ''
    try {
      const r = new Reporter(first.baseUrl, await tokenFor(first.baseUrl))
      batch = await r.newBatch()
      const w = await world()
      const uploads = students.map((studentUID, i) => ({
        segment: 'student',
        body: { ...w.student, studentUID, familyName: `${w.student.familyName}${letters(i)}` },
      }))
      for (let i = 0; i < uploads.length; i += 8)
        await Promise.all(uploads.slice(i, i + 8).map((u) => r.upload(batch, [u])))
      const { status } = await r.validate(batch)
      assert.equal(status.hasBlockingValidationFailures, false)
      assert.equal((await r.submit(batch)).status, 200)
      // Thousands of steps of a few milliseconds each: a second in, the indexing is under way and far
      // from done (checked below: a kill before the first step or after the last fails the test).
      await pause(1_000)
    } finally {
      await first.crash()
    }
    const killed = await look(students)
    assert.equal(killed.progress.length, 1, 'the kill landed while the indexing was under way (its progress kept)')
    assert.notEqual(killed.progress[0], 'cleanup', 'the kill landed before the batch was indexed')

    // The restarted service resumes the killed job's indexing (in slices of the default size).
    const second = await startChildService({ ...env, RECONCILIATION_SLICE_RECORDS: '5000' })
    try {
      const r = new Reporter(second.baseUrl, await tokenFor(second.baseUrl))
      await r.waitForReconciled(batch, 120_000)
    } finally {
      await second.stop()
    }
    const resumed = await look(students)
    assert.equal(resumed.submitted.length, 1)
    const day = resumed.submitted[0]!.day
    assert.deepEqual(resumed.items, [{ day, n: RECORDS }], 'one item a student, searched by its submission day')
    assert.deepEqual(resumed.counts, [{ day, n: RECORDS }], 'the day counted once for each student')
  })
})
