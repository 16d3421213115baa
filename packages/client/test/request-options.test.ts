// No call hangs for ever and any call can be stopped: each attempt of each request has a timeout
// (retried only where a lost connection would be), and the caller's AbortSignal stops a request, a
// back-off or a workflow at once. Every request names the SDK (and the application) in its
// User-Agent. Against a real service, behind a loopback proxy that can answer late or never.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import {
  DEFAULT_TIMEOUT_MS,
  NetworkError,
  ServiceError,
  TimeoutError,
  UsageError,
  VERSION,
  Vetrs,
  type RetryNotice,
} from '../src/index.ts'
import { FaultProxy } from './support/fault-proxy.ts'
import {
  newRto,
  recordsOf,
  sdkFor,
  startTestService,
  unitRecord,
  type TestRto,
  type TestService,
} from './support/service.ts'

const BATCH = /\/transaction-batch\/[^/?]+$/
const UPLOADS =
  /\/transaction-batch\/[^/]+\/(student|deliverylocation|program|programoffering|programenrolment|subject|subjectoffering|subjectenrolment|records)$/
const getBatch = (r: { method: string; path: string }) => r.method === 'GET' && BATCH.test(r.path)

/**
 * The client with its token already obtained (and the retries that took forgotten). A timeout covers
 * the wait for a token too, so a test that counts attempts starts from a client that has one: a token
 * request hashes the secret with scrypt, slow on a busy machine. For the same reason the tests cut
 * requests with a call's timeoutMs, and leave the client's (the token request's) generous.
 */
async function warm(sdk: Vetrs, notices?: RetryNotice[]): Promise<Vetrs> {
  await sdk.authenticate()
  notices?.splice(0)
  return sdk
}

/** How long `work` took to settle, and how: its value or its error. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now()
  try {
    const value = await work
    return { ms: performance.now() - started, value }
  } catch (error) {
    return { ms: performance.now() - started, error }
  }
}

describe('SDK request options: timeouts, AbortSignal, User-Agent', () => {
  let t: TestService
  let proxy: FaultProxy
  let rto: TestRto
  let batch: string
  before(async () => {
    t = await startTestService()
    proxy = await new FaultProxy(t.baseUrl).start()
    rto = await newRto(t)
    batch = (await sdkFor(t.baseUrl, rto).createBatch('NSW')).transactionBatchToken
  })
  after(async () => {
    await proxy.close()
    await t.close()
  })

  it('the per-attempt timeout is 60 s unless the client or the call says otherwise; a timeout that is not a positive number is refused', async () => {
    const credentials = { clientId: rto.clientId, clientSecret: rto.clientSecret }
    assert.equal(DEFAULT_TIMEOUT_MS, 60_000)
    assert.equal(new Vetrs({ baseUrl: t.baseUrl, credentials }).timeoutMs, 60_000)
    assert.equal(new Vetrs({ baseUrl: t.baseUrl, credentials, timeoutMs: 1234 }).timeoutMs, 1234)
    assert.equal(new Vetrs({ baseUrl: t.baseUrl, credentials, timeoutMs: Infinity }).timeoutMs, Infinity)
    assert.throws(() => new Vetrs({ baseUrl: t.baseUrl, credentials, timeoutMs: 0 }), UsageError)
    await assert.rejects(sdkFor(t.baseUrl, rto).batch('NSW', batch, { timeoutMs: -1 }), UsageError)
    assert.equal((await sdkFor(t.baseUrl, rto).batch('NSW', batch, { timeoutMs: Infinity })).status, 'NotSubmitted')
  })

  it('a GET with no answer in time is retried (it is safe to repeat) and completes; onRetry names the cause timeout', async () => {
    proxy.clear()
    proxy.injectTimes(1, 'hang', getBatch)
    const notices: RetryNotice[] = []
    const sdk = await warm(sdkFor(proxy.baseUrl, rto, { timeoutMs: 1000, onRetry: (n) => notices.push(n) }), notices)
    const { ms, value } = await timed(sdk.batch('NSW', batch))
    assert.equal(value?.transactionBatchToken, batch)
    assert.ok(ms >= 1000 && ms < 5000, `${ms} ms`)
    assert.deepEqual(
      notices.map((n) => n.cause),
      ['timeout'],
    )
    assert.deepEqual(
      proxy.seen.filter(getBatch).map((s) => s.status),
      ['hung', 200],
    )
  })

  it('an answer that stops part-way through its body is no answer either: the body is read within the timeout, then retried', async () => {
    proxy.clear()
    proxy.injectTimes(1, 'hang-body', getBatch)
    const sdk = await warm(sdkFor(proxy.baseUrl, rto))
    // Long enough for the healthy second attempt on a loaded machine; the stalled first one waits it out.
    const { value, error } = await timed(sdk.batch('NSW', batch, { timeoutMs: 1500 }))
    assert.equal(error, undefined)
    assert.equal(value?.transactionBatchToken, batch)
    assert.equal(proxy.seen.filter(getBatch).length, 2)
  })

  it('no answer on any attempt: a TimeoutError (a NetworkError) once maxAttempts are spent, each attempt cut at timeoutMs', async () => {
    proxy.clear()
    proxy.inject((r) => (getBatch(r) ? 'hang' : undefined))
    const sdk = await warm(sdkFor(proxy.baseUrl, rto, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } }))
    const { ms, error } = await timed(sdk.batch('NSW', batch, { timeoutMs: 200 }))
    assert.ok(error instanceof TimeoutError, String(error))
    assert.ok(error instanceof NetworkError)
    assert.equal(error.timeoutMs, 200)
    assert.match(error.message, /GET \/vet-provider\/v1\/NSW\/transaction-batch\/\S+ got no answer within 200 ms/)
    assert.ok(ms >= 600 && ms < 3000, `${ms} ms for three attempts of 200 ms`)
    assert.equal(proxy.seen.filter(getBatch).length, 3)
    proxy.clear()
  })

  it('submit with no answer in time is retried with its idempotency key: the first request never answered, the retry is answered', async () => {
    const sdk = sdkFor(proxy.baseUrl, rto)
    const own = (await sdk.createBatch('NSW')).transactionBatchToken
    proxy.clear()
    proxy.injectTimes(1, 'hang', (r) => r.path.endsWith('/submit'))
    const { error } = await timed(sdk.submitBatch('NSW', own, { timeoutMs: 300 }))
    // Not validated: the service's answer to the retry is 409.
    assert.ok(error instanceof ServiceError && error.status === 409, String(error))
    const submits = proxy.seen.filter((s) => s.path.endsWith('/submit'))
    assert.deepEqual(
      submits.map((s) => s.status),
      ['hung', 409],
    )
    assert.equal(submits[1]?.idempotencyKey, submits[0]?.idempotencyKey)
  })

  it('deadlineMs bounds the whole call, retries included: no retry starts that it would cut short', async () => {
    proxy.clear()
    proxy.inject((r) => (getBatch(r) ? { status: 503, headers: { 'retry-after': '1' } } : undefined))
    const sdk = await warm(sdkFor(proxy.baseUrl, rto, { retry: { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 5000 } }))
    const { error, ms } = await timed(sdk.batch('NSW', batch, { deadlineMs: 2500 }))
    assert.ok(error instanceof ServiceError && error.status === 503, String(error))
    assert.ok(ms < 2500, `${ms} ms`)
    assert.equal(proxy.seen.filter(getBatch).length, 3, 'at 0, 1 and 2 s; a fourth would start after the deadline')
    proxy.clear()
    proxy.inject((r) => (getBatch(r) ? 'hang' : undefined))
    const hung = await timed(sdkFor(proxy.baseUrl, rto, { deadlineMs: 700 }).batch('NSW', batch, { timeoutMs: 10_000 }))
    assert.ok(hung.error instanceof TimeoutError, String(hung.error))
    assert.ok(hung.ms >= 650 && hung.ms < 2000, `${hung.ms} ms: the client's deadline cut the attempt short`)
    proxy.clear()
  })

  it('an attempt that runs out while waiting for a token never left, so it is retried even for a POST not safe to repeat', async () => {
    proxy.clear()
    // The token comes after the first attempt's timeout; the second attempt still has most of its own
    // for the request itself (2 s, so a loaded machine's slow answer is not taken for the case tested).
    proxy.injectTimes(1, { delayMs: 2500 }, (r) => r.path === '/oauth2/token')
    const notices: RetryNotice[] = []
    const sdk = sdkFor(proxy.baseUrl, rto, {
      onRetry: (n) => notices.push(n),
      retry: { maxAttempts: 50, baseDelayMs: 5, maxDelayMs: 50 },
    })
    const created = await sdk.createBatch('NSW', { timeoutMs: 2000 })
    assert.equal(created.status, 'NotSubmitted')
    assert.ok(notices.some((n) => n.path.endsWith('/transaction-batch') && n.cause === 'timeout'))
    assert.equal(proxy.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/transaction-batch')).length, 1)
  })

  it("a call's timeoutMs overrides the client's, longer or shorter", async () => {
    proxy.clear()
    proxy.injectTimes(1, { delayMs: 1500 }, getBatch)
    const notices: RetryNotice[] = []
    const short = await warm(sdkFor(proxy.baseUrl, rto, { timeoutMs: 1000, onRetry: (n) => notices.push(n) }), notices)
    assert.equal((await short.batch('NSW', batch, { timeoutMs: 5000 })).transactionBatchToken, batch)
    assert.deepEqual(notices, [], 'the slow answer was waited for')
    proxy.clear()
    proxy.injectTimes(1, 'hang', getBatch)
    const patient = sdkFor(proxy.baseUrl, rto) // the 60 s default
    const { ms, value } = await timed(patient.batch('NSW', batch, { timeoutMs: 200 }))
    assert.equal(value?.transactionBatchToken, batch)
    assert.ok(ms < 3000, `${ms} ms: cut at 200 ms and retried, not 60 s`)
  })

  it("the token request has the client's timeout: a token endpoint that does not answer is retried", async () => {
    proxy.clear()
    proxy.injectTimes(1, 'hang', (r) => r.path === '/oauth2/token')
    const notices: RetryNotice[] = []
    const sdk = sdkFor(proxy.baseUrl, rto, { timeoutMs: 1500, onRetry: (n) => notices.push(n) })
    assert.equal((await sdk.batch('NSW', batch)).transactionBatchToken, batch)
    assert.deepEqual(
      proxy.seen.filter((s) => s.path === '/oauth2/token').map((s) => s.status),
      ['hung', 200],
    )
    assert.ok(notices.some((n) => n.path.endsWith('/oauth2/token') && n.cause === 'timeout'))
  })

  it("an AbortSignal stops a request waiting for its answer at once, rejecting with the signal's reason, and it is not retried", async () => {
    proxy.clear()
    proxy.inject((r) => (getBatch(r) ? 'hang' : undefined))
    const sdk = await warm(sdkFor(proxy.baseUrl, rto))
    const controller = new AbortController()
    const reason = new Error('the operator pressed stop')
    setTimeout(() => controller.abort(reason), 200)
    const { ms, error } = await timed(sdk.batch('NSW', batch, { signal: controller.signal }))
    assert.equal(error, reason)
    // Without the signal the request would wait for the SDK's 60 s timeout: 10 s tells "at once" from
    // that on any machine, where 1 s could fail on a slow one.
    assert.ok(ms < 10_000, `${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(proxy.seen.filter(getBatch).length, 1, 'no retry after an abort, although a GET is safe to repeat')
    proxy.clear()
  })

  it('an AbortSignal stops a back-off at once: a 429 asking for 30 s is not waited out', async () => {
    proxy.clear()
    proxy.inject((r) => (getBatch(r) ? { status: 429, headers: { 'retry-after': '30' } } : undefined))
    const sdk = await warm(sdkFor(proxy.baseUrl, rto, { retry: { baseDelayMs: 5, maxDelayMs: 60_000 } }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const { ms, error } = await timed(sdk.batch('NSW', batch, { signal: controller.signal }))
    assert.equal((error as Error)?.name, 'AbortError')
    assert.ok(ms < 10_000, `${ms} ms: the 30 s back-off was not waited out`)
    assert.equal(proxy.seen.filter(getBatch).length, 1)
    proxy.clear()
  })

  it('a signal already aborted: nothing is sent', async () => {
    proxy.clear()
    const reason = new Error('too late')
    await assert.rejects(sdkFor(proxy.baseUrl, rto).batch('NSW', batch, { signal: AbortSignal.abort(reason) }), reason)
    assert.equal(proxy.seen.length, 0)
  })

  it('a workflow stops at its signal wherever it is (here waiting for validation): at once, with the reason, nothing submitted', async () => {
    proxy.clear()
    proxy.inject((r) => (r.method === 'GET' && r.path.endsWith('/validate') ? 'hang' : undefined))
    const sdk = sdkFor(proxy.baseUrl, rto)
    const controller = new AbortController()
    const reason = new Error('shutting down')
    const work = sdk.submit(recordsOf(await unitRecord()), {
      jurisdiction: 'NSW',
      signal: controller.signal,
      onProgress: (e) => {
        if (e.phase === 'upload' && e.done === e.total) setTimeout(() => controller.abort(reason), 300)
      },
    })
    const { ms, error } = await timed(work)
    assert.equal(error, reason)
    assert.ok(ms < 10_000, `${ms} ms`)
    assert.equal(proxy.seen.filter((s) => s.path.endsWith('/submit')).length, 0)
    proxy.clear()
  })

  it("a workflow's timeoutMs reaches every request: a hung upload is cut and retried, and submit() completes", async () => {
    proxy.clear()
    proxy.injectTimes(1, 'hang', (r) => r.method === 'POST' && UPLOADS.test(r.path))
    const sdk = await warm(sdkFor(proxy.baseUrl, rto))
    const outcome = await sdk.submit(recordsOf(await unitRecord()), {
      jurisdiction: 'NSW',
      timeoutMs: 3000,
    })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    assert.equal(proxy.seen.filter((s) => UPLOADS.test(s.path) && s.status === 'hung').length, 1)
  })

  it('every request, the token request included, reaches the service with User-Agent vetrs-client/<version> node/<version>', async () => {
    const version = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')).version
    assert.equal(VERSION, version)
    const agents: { url: string; userAgent: string | undefined }[] = []
    const listener = (request: IncomingMessage) =>
      agents.push({ url: request.url ?? '', userAgent: request.headers['user-agent'] })
    t.service.app.server.on('request', listener)
    try {
      const sdk = sdkFor(t.baseUrl, rto)
      await sdk.batch('NSW', batch)
      await sdk.students.upload('NSW', batch, (await unitRecord()).student)
    } finally {
      t.service.app.server.off('request', listener)
    }
    assert.deepEqual(
      agents.map((a) => a.url.replace(/transaction-batch\/.*/, 'transaction-batch/...')),
      ['/oauth2/token', '/vet-provider/v1/NSW/transaction-batch/...', '/vet-provider/v1/NSW/transaction-batch/...'],
    )
    for (const { userAgent } of agents) assert.equal(userAgent, `vetrs-client/${version} node/${process.versions.node}`)
  })

  it('appInfo names the application after the SDK; one a header cannot carry is refused when the client is made', async () => {
    proxy.clear()
    const sdk = sdkFor(proxy.baseUrl, rto, {
      appInfo: { name: 'AcmeSMS', version: '4.2.0', url: 'https://sms.example/vetrs' },
    })
    await sdk.batch('NSW', batch)
    const expected = `vetrs-client/${VERSION} node/${process.versions.node} AcmeSMS/4.2.0 (+https://sms.example/vetrs)`
    assert.equal(sdk.userAgent, expected)
    assert.deepEqual([...new Set(proxy.seen.map((s) => s.userAgent))], [expected])
    const credentials = { clientId: rto.clientId, clientSecret: rto.clientSecret }
    assert.throws(() => new Vetrs({ baseUrl: t.baseUrl, credentials, appInfo: { name: 'Acme SMS' } }), UsageError)
    assert.throws(
      () => new Vetrs({ baseUrl: t.baseUrl, credentials, appInfo: { name: 'Acme', url: 'https://x\r\nX-Evil: 1' } }),
      UsageError,
    )
  })
})
