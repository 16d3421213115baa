// Outages (issue 16): while PostgreSQL cannot be reached every request that needs it is answered 503
// service-unavailable with Retry-After, never 401 (the token is fine) or 500 (nothing is broken), and
// the service serves again within seconds of the database coming back. The outage is a loopback proxy
// in front of the shared PostgreSQL that the test stops and restarts; the server itself is untouched.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  call,
  createTestDatabase,
  loadExample,
  onPostgres,
  startTestService,
  TcpProxy,
  V1,
  waitFor,
  type TestDatabase,
  type TestService,
} from './support/index.ts'
import { isDatabaseUnavailable } from '../src/platform/db/availability.ts'

const FULL = '1901-01-01T00:00:00Z'
const skip = onPostgres
  ? false
  : 'an outage of the embedded PGlite cannot happen apart from the process; this needs TEST_DATABASE=postgres'

describe('PostgreSQL unreachable', { skip }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let t: TestService
  let token: string
  let batch: string
  let student: Record<string, unknown>

  before(async () => {
    database = await createTestDatabase()
    proxy = await new TcpProxy(Number(new URL(database.env.DATABASE_URL!).port || 5432)).start()
    t = await startTestService({
      database: { ...database, env: { DATABASE_URL: proxy.urlThrough(database.env.DATABASE_URL!) } },
      env: { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
    })
    token = await t.token('demo-rto-1')
    batch = (await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, { token })).json.transactionBatchToken
    student = await loadExample('student')
  })
  after(async () => {
    await proxy?.start().catch(() => {}) // the service closes its pools through it
    await t?.close()
    await proxy?.stop()
    await database?.drop()
  })

  const requests = () => ({
    upload: () => call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch/${batch}/student`, { token, json: student }),
    list: () => call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}/student`, { token }),
    referenceData: () => call(t.baseUrl, 'GET', `${V1}/reference-data/gender?changedSince=${FULL}`, { token }),
    token: () =>
      call(t.baseUrl, 'POST', '/oauth2/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-1',
          client_secret: 'demo-secret-1',
        }),
      }),
  })

  it('upload, list, reference data and the token endpoint answer 503 service-unavailable with Retry-After, quickly, and never 401 or 500', async () => {
    await proxy.stop()
    for (const [name, send] of Object.entries(requests())) {
      const started = performance.now()
      const response = await send()
      const elapsedMs = performance.now() - started
      assert.equal(response.status, 503, `${name}: ${response.status} ${response.text}`)
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, name)
      assert.equal(response.json.type, '/problems/service-unavailable', name)
      assert.equal(response.json.status, 503, name)
      assert.match(response.json.detail, /database/, name)
      assert.ok(
        Number(response.headers.get('retry-after')) > 0,
        `${name}: Retry-After ${response.headers.get('retry-after')}`,
      )
      assert.equal(response.headers.get('www-authenticate'), null, `${name}: nothing to say about the token`)
      // A request that waited for the database would wait until it came back (never, here): 10 s tells
      // answering from waiting on a machine several times slower.
      assert.ok(elapsedMs < 10_000, `${name}: answered in ${Math.round(elapsedMs)} ms`)
    }
    const ready = await call(t.baseUrl, 'GET', '/health/ready')
    assert.equal(ready.status, 503)
  })

  it('a database that accepts connections but never answers: 503 after DATABASE_CONNECT_TIMEOUT_SECONDS, not a request hanging', {
    timeout: 60_000,
  }, async () => {
    await proxy.stall()
    try {
      for (const [name, send] of Object.entries(requests())) {
        const started = performance.now()
        const response = await send()
        const elapsedMs = performance.now() - started
        assert.equal(response.status, 503, `${name}: ${response.status} ${response.text}`)
        assert.equal(response.json.type, '/problems/service-unavailable', name)
        assert.ok(Number(response.headers.get('retry-after')) > 0, name)
        assert.ok(
          // At least the 1 s connect timeout; under 8 s, where a request left hanging would not be.
          elapsedMs >= 900 && elapsedMs < 8000,
          `${name}: answered in ${Math.round(elapsedMs)} ms; the connect timeout is 1 s`,
        )
      }
    } finally {
      await proxy.stop()
    }
  })

  it('when the database returns, the same token and the same requests succeed again within seconds', async () => {
    await proxy.stop() // (already stopped when run after the test above; this one also stands alone)
    assert.equal((await requests().list()).status, 503)
    await proxy.start()
    let statuses: Record<string, number> = {}
    await waitFor(
      () => `still ${JSON.stringify(statuses)}`,
      async () => {
        statuses = {}
        for (const [name, send] of Object.entries(requests())) statuses[name] = (await send()).status
        return Object.values(statuses).every((status) => status < 300) ? true : undefined
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    )
    // The upload is 201 the first time it gets through and 200 (replaced) after that.
    assert.ok([200, 201].includes(statuses.upload!), JSON.stringify(statuses))
    assert.deepEqual({ ...statuses, upload: 200 }, { upload: 200, list: 200, referenceData: 200, token: 200 })
    assert.equal((await call(t.baseUrl, 'GET', '/health/ready')).status, 200)
  })
})

describe('isDatabaseUnavailable', () => {
  const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code })

  it('recognises refused and cut connections, pool and connect timeouts, and the SQLSTATEs of a server going or gone away', () => {
    for (const error of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('ETIMEDOUT'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated') }),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      withCode('08006'),
      withCode('08001'),
      withCode('57P01'),
      withCode('57P02'),
      withCode('57P03'),
      withCode('53300'),
    ])
      assert.equal(isDatabaseUnavailable(error), true, `${(error as { code?: string }).code ?? ''} ${error.message}`)
  })

  it('leaves every other failure alone: constraint violations, syntax errors, missing tables, plain bugs', () => {
    for (const error of [
      withCode('23505'),
      withCode('42601'),
      withCode('42P01'),
      withCode('57014', 'canceling statement due to statement timeout'),
      new TypeError('x is undefined'),
      'ECONNREFUSED',
      undefined,
    ]) {
      assert.equal(isDatabaseUnavailable(error), false, String(error))
    }
  })
})
