// Rate limiting (spec: Errors 429): per client id, not per address; 429 problem details with
// Retry-After and the RateLimit fields; shared across processes through Redis.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  call,
  createTestDatabase,
  pause,
  registerProbeRoutes,
  startChildService,
  startTestService,
  TcpProxy,
  tokenFor,
  waitFor,
  type TestService,
} from './support/index.ts'
import { Writable } from 'node:stream'
import { request as httpRequest } from 'node:http'
import pino from 'pino'

/** A GET from a loopback address of its own (127.0.0.x), so each test counts against a fresh address. */
function getFrom(localAddress: string, baseUrl: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${baseUrl}${path}`, { localAddress, headers, agent: false }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    request.on('error', reject)
    request.end()
  })
}

/**
 * Requests refused for their token (a garbage one, none) and requests to unknown paths count against
 * their source address (docs/decisions.md, "Rate limiting"): with a limit of 3, the fourth is 429,
 * and a client with a valid token from another address is not limited by them.
 */
function refusedRequestsAreCounted(redisUrl: () => string | undefined) {
  let t: TestService
  before(async () => {
    t = await startTestService({
      env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: redisUrl() ?? '' },
    })
  })
  after(() => t?.close())
  const batches = '/vet-provider/v1/NSW/transaction-batch'
  const cases: [string, string, string, Record<string, string>, number][] = [
    ['a garbage bearer token (401)', '127.0.0.11', batches, { authorization: 'Bearer garbage.garbage.garbage' }, 401],
    ['no token (401)', '127.0.0.12', batches, {}, 401],
    ['an unknown path (404)', '127.0.0.13', '/no/such/path', {}, 404],
    ['an unknown path with a garbage token (404)', '127.0.0.14', '/nothing', { authorization: 'Bearer x' }, 404],
  ]
  for (const [label, address, path, headers, refused] of cases) {
    it(`requests with ${label} count against their address: the fourth of three allowed is 429`, async () => {
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) statuses.push(await getFrom(address, t.baseUrl, path, headers))
      assert.deepEqual(statuses, [refused, refused, refused, 429])
    })
  }
  it('a client with a valid token is not limited by what an address was refused', async () => {
    const token = await t.token('demo-rto-1') // the token request counts against 127.0.0.1
    assert.equal((await call(t.baseUrl, 'GET', batches, { token })).status, 200)
  })
}

describe('rate limiting counts refused requests, counters in memory', () => {
  refusedRequestsAreCounted(() => undefined)
})

describe('rate limiting counts refused requests, counters in Redis', {
  skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set; CI sets it (.ci/run)',
}, () => {
  refusedRequestsAreCounted(() => process.env.REDIS_URL)
})

/**
 * Behind a load balancer (TRUST_PROXY names it), unauthenticated requests count against the address
 * X-Forwarded-For gives, so one flood does not spend everyone's allowance; from any other address the
 * header is ignored, so a client cannot pick a fresh allowance by writing one.
 */
describe('rate limiting behind a trusted proxy (TRUST_PROXY)', () => {
  let t: TestService
  const proxy = '127.0.0.21'
  before(async () => {
    t = await startTestService({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60', TRUST_PROXY: proxy } })
  })
  after(() => t?.close())
  const batches = '/vet-provider/v1/NSW/transaction-batch'

  it('counts requests through the proxy against the forwarded address, each address its own allowance', async () => {
    const from = (client: string) => getFrom(proxy, t.baseUrl, batches, { 'x-forwarded-for': client })
    const first: number[] = []
    for (let i = 0; i < 4; i++) first.push(await from('203.0.113.1'))
    assert.deepEqual(first, [401, 401, 401, 429])
    assert.equal(await from('203.0.113.2'), 401, 'another client behind the same proxy is not limited by the first')
  })

  it('ignores X-Forwarded-For from an address that is not a trusted proxy', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push(await getFrom('127.0.0.22', t.baseUrl, batches, { 'x-forwarded-for': `198.51.100.${i}` }))
    assert.deepEqual(statuses, [401, 401, 401, 429])
  })
})

describe('rate limiting in one process', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({
      env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: '' },
      extraRoutes: registerProbeRoutes,
    })
  })
  after(() => t.close())

  it('Errors 429: the sixth request of a client in the window is 429 problem details with Retry-After and RateLimit fields', async () => {
    const token = await t.token('demo-rto-1') // unauthenticated: counts against the address, not the client
    const statuses: number[] = []
    let limited: Awaited<ReturnType<typeof call>> | undefined
    for (let i = 0; i < 6; i++) {
      const response = await call(t.baseUrl, 'GET', '/probe/records', { token })
      statuses.push(response.status)
      if (response.status === 429) limited ??= response
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429])
    assert.ok(limited)
    assert.equal(limited.json.type, '/problems/rate-limited')
    assert.match(limited.headers.get('content-type') ?? '', /problem\+json/)
    assert.ok(Number(limited.headers.get('retry-after')) > 0)
    assert.match(limited.headers.get('ratelimit') ?? '', /^limit=5, remaining=0, reset=\d+$/)
    assert.equal(limited.headers.get('ratelimit-policy'), '5;w=60')
  })

  it('limits are per client, not per address: another client from the same address is not limited', async () => {
    const token = await t.token('demo-rto-2')
    const response = await call(t.baseUrl, 'GET', '/probe/records', { token })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('ratelimit') ?? '', /^limit=5, remaining=4, reset=\d+$/)
  })

  it("nobody can spend a client's allowance by naming it: unauthenticated requests count against their address", async () => {
    const victim = await startTestService({
      env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' },
      extraRoutes: registerProbeRoutes,
    })
    try {
      const token = await victim.token('demo-rto-2') // address: 1 of 3
      for (let i = 0; i < 3; i++) {
        await call(victim.baseUrl, 'POST', '/oauth2/token', {
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: 'demo-rto-2',
            client_secret: 'guess',
          }),
        })
      }
      const tokenRequest = await call(victim.baseUrl, 'POST', '/oauth2/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-2',
          client_secret: 'guess',
        }),
      })
      assert.equal(tokenRequest.status, 429, 'the guessing address is limited')
      assert.equal((await call(victim.baseUrl, 'GET', '/probe/records', { token })).status, 200, 'the client is not')
    } finally {
      await victim.close()
    }
  })

  it('health and documentation endpoints are exempt', async () => {
    for (let i = 0; i < 8; i++) {
      assert.equal((await call(t.baseUrl, 'GET', '/health/live')).status, 200)
      assert.equal((await call(t.baseUrl, 'GET', '/openapi.json')).status, 200)
      assert.equal((await fetch(`${t.baseUrl}/docs/`)).status, 200)
    }
  })
})

describe('rate limiting shared across processes through Redis', () => {
  const redisUrl = process.env.REDIS_URL
  it('two processes sharing Redis enforce one limit per client', {
    skip: redisUrl ? false : 'REDIS_URL is not set; CI sets it (.ci/run)',
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vetrs-rl-'))
    const database = await createTestDatabase(dataDir)
    const namespace = `shared-${randomBytes(4).toString('hex')}`
    const env = { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: redisUrl! }
    // Process A is this test process; process B is a separate `node src/main.ts` on its own database.
    const a = await startTestService({ env: { ...env, REDIS_NAMESPACE: namespace } })
    const b = await startChildService({ ...env, ...database.env, REDIS_NAMESPACE: namespace })
    try {
      const tokens = { [a.baseUrl]: await tokenFor(a.baseUrl), [b.baseUrl]: await tokenFor(b.baseUrl) } // each process signs its own
      const statuses = []
      for (const baseUrl of [a.baseUrl, b.baseUrl, a.baseUrl, b.baseUrl, a.baseUrl, b.baseUrl]) {
        statuses.push(
          (await call(baseUrl, 'GET', '/vet-provider/v1/NSW/transaction-batch', { token: tokens[baseUrl] })).status,
        )
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429])
    } finally {
      await b.stop()
      await a.close()
      await database.drop()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

describe('rate limiting while Redis is unreachable (issue 16, Outages)', () => {
  const redisUrl = process.env.REDIS_URL
  /** A logger that keeps what this service says about Redis. */
  function recordingLogger() {
    const messages: string[] = []
    const stream = new Writable({
      write(chunk, _encoding, done) {
        messages.push(JSON.parse(String(chunk)).msg)
        done()
      },
    })
    return {
      logger: pino({ level: 'info' }, stream),
      about: () => messages.filter((message) => /redis/i.test(message)),
    }
  }
  /** Six requests, one more than the limit allows: their statuses and the slowest answer. */
  async function burst(baseUrl: string, token: string) {
    const statuses: number[] = []
    let slowestMs = 0
    for (let i = 0; i < 6; i++) {
      const started = performance.now()
      statuses.push((await call(baseUrl, 'GET', '/probe/records', { token })).status)
      slowestMs = Math.max(slowestMs, performance.now() - started)
    }
    return { statuses, slowestMs }
  }

  it('Redis dead from the start: the service starts, every request passes quickly (2xx, not 500), and the outage is logged once', async () => {
    const nothing = await new TcpProxy(1).start() // a loopback port that nobody listens on once closed
    await nothing.stop()
    const { logger, about } = recordingLogger()
    const t = await startTestService({
      env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: `redis://127.0.0.1:${nothing.port}` },
      service: { logger },
      extraRoutes: registerProbeRoutes,
    })
    try {
      // Start-up not waiting on Redis is shown by the start having finished at all (a start that waited
      // for a dead Redis would never finish; the test's bound ends it). No clock: starting the embedded
      // database alone took over 10 s in a CI run at full load, which an assertion on the time failed.
      const token = await t.token('demo-rto-1') // the token endpoint is limited too, and passes
      const first = await burst(t.baseUrl, token)
      await pause(1500) // several reconnection attempts fail meanwhile: the time passing is what is tested
      const second = await burst(t.baseUrl, token)
      assert.deepEqual(
        [...first.statuses, ...second.statuses],
        Array(12).fill(200),
        'over the limit of 5, and all let through',
      )
      // A request that waited for a dead Redis would wait until it came back (never, here): 5 s tells
      // passing from waiting on a machine several times slower, where 1 s could fail.
      assert.ok(
        Math.max(first.slowestMs, second.slowestMs) < 5000,
        `slowest answer ${Math.round(Math.max(first.slowestMs, second.slowestMs))} ms`,
      )
      assert.deepEqual(about(), ['Redis unreachable: rate limiting lets every request through until it is back'])
    } finally {
      await t.close()
    }
  })

  it('Redis lost and back: requests pass while it is away, limiting works again when it returns, each change logged once', {
    skip: redisUrl ? false : 'REDIS_URL is not set; CI sets it (.ci/run)',
    timeout: 60_000,
  }, async () => {
    const proxy = await new TcpProxy(Number(new URL(redisUrl!).port || 6379)).start()
    const { logger, about } = recordingLogger()
    const t = await startTestService({
      env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: proxy.urlThrough(redisUrl!) },
      service: { logger },
      extraRoutes: registerProbeRoutes,
    })
    try {
      const token = await t.token('demo-rto-1')
      assert.deepEqual(
        (await burst(t.baseUrl, token)).statuses,
        [200, 200, 200, 200, 200, 429],
        'limited through Redis',
      )

      await proxy.stop()
      const during = await burst(t.baseUrl, token)
      assert.deepEqual(during.statuses, Array(6).fill(200), 'let through, uncounted, while Redis is away')
      assert.ok(during.slowestMs < 5000, `slowest answer ${Math.round(during.slowestMs)} ms`)

      await proxy.start()
      // ioredis reconnects within 2 s of Redis answering again
      await waitFor(
        'the counter kept in Redis limits the client again',
        async () => ((await call(t.baseUrl, 'GET', '/probe/records', { token })).status === 429 ? true : undefined),
        { timeoutMs: 10_000, intervalMs: 100 },
      )
      assert.deepEqual(about(), [
        'Redis unreachable: rate limiting lets every request through until it is back',
        'Redis reachable again: rate limiting resumes',
      ])
    } finally {
      await t.close()
      await proxy.stop()
    }
  })
})
