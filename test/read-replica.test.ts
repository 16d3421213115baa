// Read routing (DATABASE_READ_URL, docs/decisions.md "Read routing (issue 21)") against a real
// streaming replica: a PostgreSQL primary and replica of the test's own (scripts/cluster/postgres.ts,
// the same code npm run cluster starts them with), the service on both. With replay paused on the
// replica, a submitted batch is visible at once through the endpoints routed to the primary and not
// through those routed to the replica, until replay resumes; and nothing writes through the read handle.
//
// It starts its own PostgreSQL servers, so it runs in the PostgreSQL half only (skipped on PGlite, and
// without the PostgreSQL server binaries). The configuration checks and the read handle's refusal to
// write on the half's own database run in both halves.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { ConfigError, loadConfig } from '../src/config/config.ts'
import { openDatabase, readQuery, type Executor } from '../src/platform/db/database.ts'
import { openReadDatabase } from '../src/platform/db/read-database.ts'
import { StartupError } from '../src/platform/startup.ts'
import { loadRelease, readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { markBatchReconciled } from '../src/modules/batches/index.ts'
import { postgresBinaries, query, startOwnPostgresPair, type OwnPostgresPair } from '../scripts/cluster/postgres.ts'
import {
  Reporter,
  TcpProxy,
  V1,
  call,
  minimalUnitRecord,
  startTestService,
  waitFor,
  type TestService,
} from './support/index.ts'

const onPglite =
  process.env.TEST_DATABASE === 'pglite' || (process.env.TEST_DATABASE === undefined && !process.env.DATABASE_URL)
const skip = onPglite
  ? 'starts its own PostgreSQL primary and streaming replica: runs in the PostgreSQL half (DATABASE_URL given)'
  : !postgresBinaries()
    ? 'no PostgreSQL server binaries to start a primary and a replica with (apt-get install -y postgresql-15, or PG_BIN)'
    : false

/** 25006 read_only_sql_transaction: "cannot execute ... in a read-only transaction". */
const READ_ONLY = { code: '25006' }

describe('DATABASE_READ_URL: configuration', () => {
  it('is refused at start-up without DATABASE_URL: the embedded database has no replica', () => {
    assert.throws(
      () => loadConfig({ DATABASE_READ_URL: 'postgres://reader@replica:5432/vetrs' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((problem) => /^DATABASE_READ_URL needs DATABASE_URL/.test(problem)),
    )
  })

  it('must be a PostgreSQL URL, and is never shown with its password', () => {
    assert.throws(
      () =>
        loadConfig({
          DATABASE_URL: 'postgres://app:pw@primary:5432/vetrs',
          DATABASE_READ_URL: 'mysql://reader:hunter2@replica/vetrs',
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((problem) => problem.startsWith('DATABASE_READ_URL:') && !problem.includes('hunter2')),
    )
    const config = loadConfig({
      DATABASE_URL: 'postgres://app:pw@primary:5432/vetrs',
      DATABASE_READ_URL: 'postgres://reader:pw@replica:5432/vetrs',
    })
    assert.equal(
      config.database.kind === 'postgres' && config.database.readUrl,
      'postgres://reader:pw@replica:5432/vetrs',
    )
  })
})

describe('the read handle without a replica (reads on the primary, or the embedded database)', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t?.close())

  it('reads the primary, and refuses a write: raw SQL runs in a READ ONLY transaction', async () => {
    assert.equal(t.service.read.source, 'primary')
    const read = t.service.read.db
    const { rows } = await readQuery(read, sql<{ n: number }>`SELECT count(*)::int AS n FROM transaction_batch`)
    assert.equal(typeof rows[0]!.n, 'number')
    await assert.rejects(readQuery(read, sql`UPDATE transaction_batch SET status = status`), READ_ONLY)
    await assert.rejects(readQuery(read, sql`CREATE TABLE written_through_the_read_handle (x int)`), READ_ONLY)
    const ready = await call(t.baseUrl, 'GET', '/health/ready')
    assert.deepEqual(ready.json.checks, { database: 'ok', queue: 'ok' }, 'no replica, no replica check')
  })
})

describe('read routing against a real streaming replica', { skip }, () => {
  let pair: OwnPostgresPair | undefined
  let t: TestService
  let r: Reporter
  let replicaPaused = false
  const pauseReplay = async (paused: boolean) => {
    await query(pair!.replica.superuserDsn, paused ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()')
    replicaPaused = paused
    if (paused)
      await waitFor('replay to pause on the replica', async () => {
        const [row] = await query<{ state: string }>(
          pair!.replica.superuserDsn,
          'SELECT pg_get_wal_replay_pause_state() AS state',
        )
        return row?.state === 'paused' ? true : undefined
      })
  }

  before(async () => {
    pair = await startOwnPostgresPair()
    t = await startTestService({
      database: {
        env: { DATABASE_URL: pair.primary.dsn, DATABASE_READ_URL: pair.replica.dsn },
        drop: async () => {},
      },
    })
    r = new Reporter(t.baseUrl, await t.token())
  })
  after(async () => {
    if (replicaPaused) await pauseReplay(false).catch(() => {})
    await t?.close()
    await pair?.stop()
  })

  it('opens the replica read-only, reports it in /health/ready and counts its statements', async () => {
    assert.equal(t.service.read.source, 'replica')
    const { rows } = await readQuery(
      t.service.read.db,
      sql<{ recovery: boolean; readOnly: string }>`
        SELECT pg_is_in_recovery() AS recovery, current_setting('default_transaction_read_only') AS "readOnly"`,
    )
    assert.deepEqual(rows[0], { recovery: true, readOnly: 'on' })
    const ready = await call(t.baseUrl, 'GET', '/health/ready')
    assert.equal(ready.status, 200, ready.text)
    assert.deepEqual(ready.json.checks, { database: 'ok', queue: 'ok', replica: 'ok' })
    const metrics = (await call(t.baseUrl, 'GET', '/metrics')).text
    assert.match(metrics, /vetrs_db_queries_total\{pool="replica",outcome="ok"\} [1-9]/)
    assert.match(metrics, /vetrs_db_pool_connections\{pool="replica",state="total"\} \d/)
  })

  it('with replay paused, the primary-routed endpoints see the submit at once and the replica-routed ones do not until replay resumes', async () => {
    const uploads = await minimalUnitRecord()
    const student = uploads.find((upload) => upload.segment === 'student')!.body.studentUID as string
    const searchStudents = () =>
      r.request(
        'GET',
        `${V1}/search-by-period?resourceType=Student&activityDateFrom=2000-01-01&activityDateTo=2099-12-31`,
      )
    const heldRecords = () => r.request('GET', `${V1}/held-records?resourceType=Student`)
    const seen = async () => {
      const [search, held, state] = await Promise.all([
        searchStudents(),
        heldRecords(),
        r.heldState('student', student),
      ])
      assert.equal(search.status, 200, search.text)
      assert.equal(held.status, 200, held.text)
      return {
        reconciliation: search.json.results.map((item: { resourceUID: string }) => item.resourceUID),
        heldRecords: held.json.results.map((item: { resourceUID: string }) => item.resourceUID),
        stateInSubmission: state.stateInSubmission,
      }
    }
    const nothing = { reconciliation: [], heldRecords: [], stateInSubmission: 'Not found in submission' }
    assert.deepEqual(await seen(), nothing)

    const batch = await r.batchWith(uploads)
    const { results } = await r.validate(batch)
    assert.deepEqual(
      results.filter((result) => result.validationMessageLevel === 'Error'),
      [],
    )

    await pauseReplay(true)
    const submitted = await r.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    // Primary-routed: the caller's own write, at once, replay or not.
    const status = await r.request('GET', r.batchPath(batch))
    assert.equal(status.json.status, 'Submitted', status.text)
    await r.waitForReconciled(batch) // the reconciliation job indexed it, on the primary
    const validation = await r.request('GET', r.batchPath(batch, '/validate'))
    assert.equal(validation.json.validationStatus, 'Validated', validation.text)
    // Replica-routed: the replica has not replayed the submit, nor the indexing after it.
    assert.deepEqual(await seen(), nothing, 'replica-routed endpoints read the paused replica')

    await pauseReplay(false)
    const caughtUp = await waitFor('the replica-routed endpoints to see the submit after replay resumed', async () => {
      const now = await seen()
      return now.stateInSubmission === 'In submission' && now.reconciliation.length > 0 ? now : undefined
    })
    assert.deepEqual(caughtUp, {
      reconciliation: [student],
      heldRecords: [student],
      stateInSubmission: 'In submission',
    })
    const match = await r.request('POST', `${V1}/uid-match`, {
      resourceType: 'Student',
      reportingPeriod: '202604',
      resourceUIDs: [student],
    })
    assert.equal(match.json.results[0].resourceInSubmission, true, match.text)
  })

  it('reference data synchronisation reads the replica: a release loaded on the primary appears after replay', async () => {
    const FULL = '1901-01-01T00:00:00Z'
    const gender = async () => {
      const response = await r.request('GET', `${V1}/reference-data/gender?changedSince=${FULL}&PageSize=500`)
      assert.equal(response.status, 200, response.text)
      return (response.json.results as { code: string }[]).map((record) => record.code)
    }
    const before = await gender()
    await pauseReplay(true)
    const seed = await readSeedReferenceData()
    const summary = await loadRelease(t.service.database.db, 'gender', [
      ...seed.gender!,
      {
        code: 'Replica_probe',
        description: 'Loaded while replay was paused',
        avetmissCode: null,
        businessEffectiveFrom: null,
        businessEffectiveTo: null,
      },
    ])
    assert.equal(summary.created, 1)
    assert.deepEqual(await gender(), before, 'the paused replica has not the new version')
    await pauseReplay(false)
    const after = await waitFor('the new code to reach the replica', async () => {
      const codes = await gender()
      return codes.includes('Replica_probe') ? codes : undefined
    })
    assert.equal(after.length, before.length + 1)
  })

  it('refuses every write through the read handle: the replica session is read-only', async () => {
    const read = t.service.read.db
    await assert.rejects(readQuery(read, sql`UPDATE transaction_batch SET status = status`), READ_ONLY)
    await assert.rejects(readQuery(read, sql`INSERT INTO housekeeping_run DEFAULT VALUES`), READ_ONLY)
    await assert.rejects(readQuery(read, sql`SELECT nextval('submission_seq')`), READ_ONLY)
    // And none of these type-checks (npm run typecheck fails if one ever does): a ReadDb builds no
    // write, runs no raw SQL of its own, and is not an Executor that writing repositories take.
    const neverCalled = (executor: Executor) => {
      // @ts-expect-error a read handle builds no UPDATE
      read.updateTable('transaction_batch').set({ status: 'Submitted' })
      // @ts-expect-error nor runs raw SQL but through readQuery
      sql`DELETE FROM transaction_batch`.execute(read)
      // @ts-expect-error nor is taken by a use case that writes
      markBatchReconciled(read, '91234', 'token')
      return executor
    }
    assert.equal(typeof neverCalled, 'function')
  })

  it('while the replica is unreachable: routed endpoints answer 503, the others and readiness keep working', async () => {
    const proxy = await new TcpProxy(pair!.replica.port).start()
    const cut = await startTestService({
      env: { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
      database: {
        env: { DATABASE_URL: pair!.primary.dsn, DATABASE_READ_URL: proxy.urlThrough(pair!.replica.dsn) },
        drop: async () => {},
      },
    })
    try {
      const reporter = new Reporter(cut.baseUrl, await cut.token())
      const routed = () =>
        reporter.request('POST', `${V1}/uid-match`, {
          resourceType: 'Student',
          reportingPeriod: '202604',
          resourceUIDs: ['30b2f2b5-9f37-4e85-953a-e86412e8c135'],
        })
      assert.equal((await routed()).status, 200)
      await proxy.stall() // unreachable without refusing: the worst case for a bounded check
      const started = performance.now()
      const ready = await call(cut.baseUrl, 'GET', '/health/ready')
      const readyMs = performance.now() - started
      assert.equal(ready.status, 200, ready.text)
      assert.deepEqual(ready.json.checks, { database: 'ok', queue: 'ok', replica: 'unreachable' })
      assert.ok(
        readyMs < 1000,
        `readiness answered in ${Math.round(readyMs)} ms: a load balancer's check waits about 1 s`,
      )
      await proxy.stop() // refused
      const refused = await routed()
      assert.equal(refused.status, 503, refused.text)
      assert.ok(refused.headers.get('retry-after'), 'a 503 says when to retry')
      const batch = await reporter.newBatch() // the primary-routed endpoints are not affected
      assert.equal((await reporter.request('GET', reporter.batchPath(batch))).status, 200)
      await proxy.start()
      await waitFor('the routed endpoints to answer again once the replica is back', async () =>
        (await routed()).status === 200 ? true : undefined,
      )
    } finally {
      await cut.close()
      await proxy.stop()
    }
  })

  it('refuses, at start-up, a DATABASE_READ_URL that reaches another database', async () => {
    const config = loadConfig({ DATABASE_URL: pair!.primary.dsn, DATABASE_READ_URL: pair!.replica.superuserDsn })
    const primary = await openDatabase(config.database)
    try {
      await assert.rejects(
        openReadDatabase(config.database, primary),
        (error: unknown) =>
          error instanceof StartupError &&
          error.problem === 'database-read-mismatch' &&
          /names database postgres, DATABASE_URL names vetrs/.test(error.message),
      )
    } finally {
      await primary.close()
    }
  })
})
