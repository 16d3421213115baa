// The queue's errors in the log (issue 30): during a database cut the log filled with
// `queue error [object Object]` (pg-boss reports some errors as plain copies of them), once per poll.
// Each is now a structured line (code, message), and an outage of the database is logged once when
// it begins and once when the queue reaches the database again, as the Redis outage is.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import pino from 'pino'
import { reportQueueErrors } from '../src/platform/queue/queue.ts'
import { errorSummary } from '../src/platform/observability/log-redaction.ts'
import { onPostgres, startTestService, TcpProxy, createTestDatabase, waitFor } from './support/index.ts'

/** A logger that keeps every line it writes, parsed. */
function recordingLogger(level = 'info') {
  const lines: Record<string, any>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { logger: pino({ level }, stream), lines }
}

/** What pg-boss's manager emits for a failed fetch: a plain copy of the error, with the queue's name. */
function asPgBossReportsIt(error: Error & { code?: string }, queue = 'validation') {
  return { ...error, message: error.message, stack: error.stack, queue, worker: 'w1' }
}
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })

describe('queue errors in the log', () => {
  it('a plain copy of an error, and an AggregateError with no message, are summarised by code and message, not [object Object]', () => {
    assert.deepEqual(errorSummary(asPgBossReportsIt(refused())), {
      name: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:5432',
      code: 'ECONNREFUSED',
    })
    assert.deepEqual(errorSummary(new AggregateError([refused(), refused()])), {
      name: 'AggregateError',
      message: 'connect ECONNREFUSED 127.0.0.1:5432',
      code: 'ECONNREFUSED',
    })
  })

  it('an outage of the database is logged once with code and message, and once when the queue reaches it again', async () => {
    const { logger, lines } = recordingLogger()
    let reachable = false
    let probes = 0
    const report = reportQueueErrors(
      logger,
      async () => {
        probes++
        if (!reachable) throw refused()
      },
      { probeIntervalMs: 20 },
    )
    try {
      for (let i = 0; i < 50; i++) report.onError(i % 2 ? refused() : asPgBossReportsIt(refused()))
      await waitFor('the probe has been tried while the database is away', async () => (probes >= 3 ? true : undefined))
      for (let i = 0; i < 10; i++) report.onError(asPgBossReportsIt(refused()))
      reachable = true
      await waitFor('the return is logged', async () => (lines.length >= 2 ? true : undefined))
      assert.equal(lines.length, 2, JSON.stringify(lines))
      const [down, back] = lines as [Record<string, any>, Record<string, any>]
      assert.equal(down.msg, 'queue cannot reach the database: jobs wait until it is back')
      assert.equal(down.level, 50)
      assert.deepEqual(down.error, {
        name: 'Error',
        message: 'connect ECONNREFUSED 127.0.0.1:5432',
        code: 'ECONNREFUSED',
      })
      assert.equal(down.queue, 'validation')
      assert.equal(back.msg, 'queue reaches the database again')
      assert.equal(back.suppressedErrors, 59)
      assert.ok(!JSON.stringify(lines).includes('[object Object]'))

      report.onError(refused()) // a second outage is logged again
      assert.equal(lines.length, 3)
    } finally {
      report.stop()
    }
  })

  it('an error that is not an outage is logged each time, structured', () => {
    const { logger, lines } = recordingLogger()
    const report = reportQueueErrors(logger, async () => {})
    try {
      const bug = Object.assign(new Error('relation "pgboss.job" does not exist'), { code: '42P01' })
      report.onError(asPgBossReportsIt(bug))
      report.onError(bug)
      assert.deepEqual(
        lines.map((line) => [line.msg, line.error.code, line.error.message]),
        [
          ['queue error', '42P01', 'relation "pgboss.job" does not exist'],
          ['queue error', '42P01', 'relation "pgboss.job" does not exist'],
        ],
      )
    } finally {
      report.stop()
    }
  })
})

describe('queue errors during a cut of PostgreSQL', {
  skip: onPostgres
    ? false
    : 'an outage of the embedded PGlite cannot happen apart from the process; TEST_DATABASE=postgres',
}, () => {
  const { logger, lines } = recordingLogger()
  let proxy: TcpProxy
  let close: () => Promise<void>
  before(async () => {
    const database = await createTestDatabase()
    proxy = await new TcpProxy(Number(new URL(database.env.DATABASE_URL!).port || 5432)).start()
    const t = await startTestService({
      database: { ...database, env: { DATABASE_URL: proxy.urlThrough(database.env.DATABASE_URL!) } },
      env: { DATABASE_CONNECT_TIMEOUT_SECONDS: '1', LOG_LEVEL: 'info' },
      service: { logger },
    })
    close = async () => {
      await proxy.start().catch(() => {})
      await t.close()
      await proxy.stop()
      await database.drop()
    }
  })
  after(() => close?.())

  it('the queue logs the cut once, with its code, and its end once', { timeout: 60_000 }, async () => {
    const about = () => lines.filter((line) => /^queue/.test(line.msg))
    await proxy.stop()
    await waitFor('the queue notices the cut', async () => (about().length > 0 ? true : undefined), {
      timeoutMs: 20_000,
    })
    await new Promise((resolve) => setTimeout(resolve, 5000)) // several polls fail meanwhile
    await proxy.start()
    await waitFor(
      'the queue reaches the database again',
      async () => (about().some((line) => line.msg === 'queue reaches the database again') ? true : undefined),
      { timeoutMs: 20_000 },
    )
    const messages = about().map((line) => line.msg)
    assert.deepEqual(
      messages,
      ['queue cannot reach the database: jobs wait until it is back', 'queue reaches the database again'],
      JSON.stringify(about()),
    )
    assert.equal(typeof about()[0]!.error.message, 'string')
    assert.ok(!JSON.stringify(lines).includes('[object Object]'))
  })
})
