// `npm run chaos -- --short`, run once as a real process: the cluster of `npm run cluster` with a
// proxy in front of each database, simulated SMS clients for several RTOs driving every workflow
// through the load balancer, and API and worker processes SIGKILLed and restarted, the primary or the
// replica cut and Redis killed on a seeded schedule (and its nats-server, where installed), while a
// webhook receiver of its own fails and stalls at random. Its own checks must all pass (nothing acknowledged
// lost or duplicated, reconciliation equal to the held dataset, no 5xx but the ones a fault explains,
// every client finished), and faults of every kind must have been injected, so that the run cannot
// pass by injecting nothing.
//
// Needs HAProxy and the PostgreSQL server binaries (and redis-server); skipped, saying so, without them:
//   apt-get install -y haproxy postgresql-15 redis-server
// It starts its own PostgreSQL whatever the half of npm test, so it runs in the PostgreSQL half only,
// alone (scripts/test.ts).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { REPO_ROOT, missingPrerequisites } from '../scripts/cluster/cluster.ts'
import { isAlive, portFree } from '../scripts/cluster/processes.ts'
import { WORKFLOWS } from '../scripts/chaos/sms.ts'

const missing = missingPrerequisites()
const skip =
  process.env.TEST_DATABASE === 'pglite'
    ? 'the chaos run starts its own PostgreSQL: run once, in the PostgreSQL half'
    : missing.length > 0
      ? `not installed here: ${missing.join('; ')}`
      : false

/** The run's own bound is its load (75 s) plus start, drain and settling; past this the test stops it. */
const RUN_LIMIT_MS = 420_000
const SEED = process.env.CHAOS_SEED ?? '21'

describe('npm run chaos -- --short', { skip, timeout: RUN_LIMIT_MS + 30_000 }, () => {
  // The test's own bound too: npm test gives every test 120 s (--test-timeout), which a quiet machine's run
  // already takes (117 s, its load alone 79 s), so a slower machine's was cut at 120 s with no summary.
  it('loses and duplicates nothing acknowledged while processes are killed, the primary or the replica cut and Redis killed', {
    timeout: RUN_LIMIT_MS + 30_000,
  }, async () => {
    const child = spawn(process.execPath, ['src/start.mjs', 'scripts/chaos.ts', '--short', '--seed', SEED, '--json'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let log = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    // Past the limit the script is told to stop (it then stops what it started), and killed if it does not.
    const timers = [
      setTimeout(() => child.kill('SIGTERM'), RUN_LIMIT_MS),
      setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS + 20_000),
    ]
    const code = await exited
    for (const timer of timers) clearTimeout(timer)
    const tail = log.split('\n').slice(-80).join('\n')

    const line = stdout.trim().split('\n').at(-1)
    assert.ok(line, `npm run chaos printed no summary (exit ${code}):\n${tail}`)
    const summary = JSON.parse(line)
    const failed = summary.checks.filter((c: { ok: boolean }) => !c.ok)
    assert.deepEqual(
      failed,
      [],
      `checks failed (seed ${summary.seed}, reproduce: npm run chaos -- --short --seed ${summary.seed}):\n${tail}`,
    )
    assert.equal(summary.ok, true)
    assert.equal(code, 0, tail)

    // Faults of every kind were injected and each recovered from.
    // With nats-server installed the run has its own broker for the relay, killed and restarted too.
    const kinds = ['kill-api', 'kill-worker', 'db-cut', 'kill-redis', 'replica-cut']
    if (summary.options.nats) kinds.push('kill-nats')
    for (const kind of kinds)
      assert.ok(summary.faults.byKind[kind] >= 1, `no ${kind} injected: ${JSON.stringify(summary.faults)}`)
    assert.deepEqual(
      summary.faults.list.filter((f: { error?: string }) => f.error),
      [],
    )
    // The load was real: every workflow ran, records were acknowledged and held, batches submitted.
    for (const workflow of ['setup', ...WORKFLOWS])
      assert.ok(summary.operations[`workflow ${workflow}`] >= 1, `workflow ${workflow} never ran`)
    assert.ok(summary.records.acknowledgedUploads > 500, JSON.stringify(summary.records))
    assert.ok(summary.records.submittedBatches > 20, JSON.stringify(summary.records))
    assert.ok(summary.records.heldNow > 500, JSON.stringify(summary.records))
    assert.ok(summary.clients.length >= 8)
    // The change feed was held to the ledger (issue 33): its checks ran, over events of every change.
    assert.ok(summary.records.events > 200, JSON.stringify(summary.records))
    // And every event reached the run's webhook receiver, which failed and stalled on the way.
    for (const name of [
      'the change feed of each RTO',
      'every acknowledged change has exactly one event',
      'no event without its change',
      'every event has one successful, verified webhook delivery',
      'the webhooks settled',
      ...(summary.options.nats
        ? ['every event is in the JetStream stream exactly once', 'the relay to JetStream caught up']
        : []),
    ])
      assert.ok(
        summary.checks.some((c: { name: string }) => c.name.startsWith(name)),
        `no check named ${name}`,
      )

    assert.ok(summary.webhooks.answered500 >= 1 && summary.webhooks.stalled >= 1, JSON.stringify(summary.webhooks))

    // Afterwards nothing it started runs and its ports are free (its cluster said so; checked here too).
    const { processes, ports } = summary.cluster as { processes: { pid: number; name: string }[]; ports: number[] }
    assert.deepEqual(
      processes.filter((p) => isAlive(p.pid)).map((p) => `${p.name} ${p.pid}`),
      [],
    )
    const held: number[] = []
    for (const port of ports) if (!(await portFree(port))) held.push(port)
    assert.deepEqual(held, [])
  })
})
