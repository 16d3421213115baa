// `npm run cluster -- --check`, run once as a real process: its own PostgreSQL primary and streaming
// replica, Redis, a worker process, two API processes and HAProxy in front. The load balancer answers
// /health/ready, requests through it reach both API processes, the replica streams, and when the run
// ends every process it started is gone and every port it used is free.
//
// Needs HAProxy and the PostgreSQL server binaries (and redis-server); skipped, saying so, without them:
//   apt-get install -y haproxy postgresql-15 redis-server
// It starts its own PostgreSQL whatever the half of npm test, so it runs in the PostgreSQL half only.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, missingPrerequisites } from '../scripts/cluster/cluster.ts'
import { isAlive, portFree, type ProcessRecord } from '../scripts/cluster/processes.ts'

const missing = missingPrerequisites()
const skip =
  process.env.TEST_DATABASE === 'pglite'
    ? 'the cluster starts its own PostgreSQL: run once, in the PostgreSQL half'
    : missing.length > 0
      ? `not installed here: ${missing.join('; ')}`
      : false

/** Longest the run may take before the test stops it (start and check; the script's own limit is shorter). */
const RUN_LIMIT_MS = 100_000

describe('npm run cluster -- --check', { skip }, () => {
  const work = mkdtempSync(join(tmpdir(), 'vetrs-cluster-test-'))
  chmodSync(work, 0o711) // the postgres user (when run as root) passes through to the cluster's data directories
  const clusterDir = join(work, 'cluster')
  const summaryFile = join(work, 'summary.json')
  /** Processes the test found still running after the run, and killed: there must be none. */
  const leftovers: string[] = []

  after(() => {
    // A safety net, never the expected path: anything the run recorded and left running is killed.
    const stateFile = join(clusterDir, 'cluster.json')
    if (existsSync(stateFile)) {
      const { processes } = JSON.parse(readFileSync(stateFile, 'utf8')) as { processes: ProcessRecord[] }
      for (const record of processes)
        if (isAlive(record.pid)) {
          leftovers.push(`${record.name} ${record.pid}`)
          process.kill(record.pid, 'SIGKILL')
        }
    }
    rmSync(work, { recursive: true, force: true })
    assert.deepEqual(leftovers, [], 'processes the run left behind (killed now)')
  })

  it('serves through the load balancer from every API process, streams to the replica, and leaves nothing running', async () => {
    const child = spawn(
      process.execPath,
      [
        'src/start.mjs',
        'scripts/cluster.ts',
        '--check',
        '--timeout',
        '80',
        '--dir',
        clusterDir,
        '--summary-json',
        summaryFile,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    // Past the limit the script is told to stop (it then stops what it started), and killed if it does not.
    const timers = [
      setTimeout(() => child.kill('SIGTERM'), RUN_LIMIT_MS),
      setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS + 15_000),
    ]
    const code = await exited
    for (const timer of timers) clearTimeout(timer)

    assert.equal(code, 0, `npm run cluster -- --check failed:\n${output}`)
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'))
    assert.equal(summary.ok, true, output)

    // The load balancer answers readiness.
    assert.deepEqual(summary.check.ready, { status: 'ok', checks: { database: 'ok', queue: 'ok', replica: 'ok' } })
    // Requests through it reached both API processes: by HAProxy's X-Served-By, and by each one's /metrics.
    const apis = summary.apis.map((api: { name: string }) => api.name)
    assert.deepEqual(apis, ['api1', 'api2'])
    for (const api of apis) {
      assert.ok(summary.check.servedBy[api] > 0, `${api} served nothing: ${JSON.stringify(summary.check.servedBy)}`)
      assert.ok(summary.check.countedByApi[api] > 0, `${api} counted nothing: ${JSON.stringify(summary.check)}`)
    }
    // The workflow ran: the worker validated, the API processes submitted, reconciliation caught up.
    assert.equal(summary.check.batch.submitted, 'Submitted')
    assert.equal(summary.check.batch.records, 9)
    // The replica streams from the primary, and holds the submitted batch.
    assert.equal(summary.check.replication.replicaInRecovery, true)
    assert.deepEqual(
      summary.check.replication.standbys.map((s: { application_name: string; state: string }) => [
        s.application_name,
        s.state,
      ]),
      [['vetrs-replica', 'streaming']],
    )
    assert.deepEqual(summary.check.onReplica, { status: 'Submitted', reconciled: true })
    // The API processes read reconciliation from it (DATABASE_READ_URL): statements on their replica pool.
    assert.equal(summary.check.reconciledStudent.resourceInSubmission, true)
    assert.ok(
      Object.values(summary.check.replicaStatementsByApi as Record<string, number>).some((count) => count > 0),
      JSON.stringify(summary.check.replicaStatementsByApi),
    )
    // The jobs ran on the worker, which serves its own /metrics (WORKER_METRICS_PORT) and counted them.
    const jobs = summary.check.jobsCompletedByWorker as Record<string, number>
    assert.deepEqual(Object.keys(jobs), ['worker1'])
    assert.ok(jobs.worker1! >= 2, JSON.stringify(jobs))

    // Afterwards: every process it started is gone, each port it used is free.
    const processes: ProcessRecord[] = summary.processes
    assert.deepEqual(processes.map((p) => p.name).sort(), [
      'api1',
      'api2',
      'haproxy',
      'primary',
      'redis',
      'replica',
      'worker1',
    ])
    assert.deepEqual(
      processes.filter((p) => isAlive(p.pid)).map((p) => `${p.name} ${p.pid}`),
      [],
      'processes still running after the run',
    )
    const held: number[] = []
    for (const port of summary.ports as number[]) if (!(await portFree(port))) held.push(port)
    assert.deepEqual(held, [], 'ports still taken after the run')
    assert.deepEqual(summary.stop.stillAlive, [])
  })
})
