// What the spec tells clients to handle (Authentication 2; Errors, 429 and protocol errors; Limits),
// proven against a real service behind a loopback proxy that injects the failures.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { ConflictReason, NetworkError, ServiceError, UsageError, collect, type RetryNotice } from '../src/index.ts'
import { FaultProxy } from './support/fault-proxy.ts'
import { call, TcpProxy, V1, waitFor } from '../../../test/support/index.ts'
import {
  newRto,
  recordsOf,
  sdkFor,
  startTestService,
  unitRecord,
  type TestRto,
  type TestService,
} from './support/service.ts'

const records = async () => recordsOf(await unitRecord())
const singleUploads =
  /\/transaction-batch\/[^/]+\/(student|deliverylocation|program|programoffering|programenrolment|subject|subjectoffering|subjectenrolment)$/
const bulkUploads = /\/transaction-batch\/[^/]+\/records$/
/** Either kind of upload. */
const uploads =
  /\/transaction-batch\/[^/]+\/(student|deliverylocation|program|programoffering|programenrolment|subject|subjectoffering|subjectenrolment|records)$/

describe('SDK resilience', () => {
  let t: TestService
  let proxy: FaultProxy
  let rto: TestRto
  before(async () => {
    t = await startTestService()
    proxy = await new FaultProxy(t.baseUrl).start()
    rto = await newRto(t)
  })
  after(async () => {
    await proxy.close()
    await t.close()
  })

  it('429 with Retry-After on single uploads: retried after back-off, every record uploaded exactly once, the workflow completes', async () => {
    proxy.clear()
    proxy.injectTimes(
      4,
      { status: 429, headers: { 'retry-after': '0' } },
      (r) => r.method === 'POST' && singleUploads.test(r.path),
    )
    const notices: RetryNotice[] = []
    const sdk = sdkFor(proxy.baseUrl, rto, { onRetry: (n) => notices.push(n) })
    const outcome = await sdk.submit(await records(), { jurisdiction: 'NSW', bulk: false })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    assert.equal(notices.filter((n) => n.cause === 429).length, 4)
    const forwarded = proxy.forwarded('POST', singleUploads)
    assert.equal(forwarded.length, 9, 'each upload reached the service once')
    assert.equal(
      new Set(forwarded.map((s) => s.path)).size,
      9 - 1,
      'nine uploads on eight segments (two subject enrolments)',
    )
  })

  it('429 with Retry-After on a bulk upload: retried after back-off, the records sent in one request that reached the service once', async () => {
    proxy.clear()
    proxy.injectTimes(
      2,
      { status: 429, headers: { 'retry-after': '0' } },
      (r) => r.method === 'POST' && bulkUploads.test(r.path),
    )
    const notices: RetryNotice[] = []
    const sdk = sdkFor(proxy.baseUrl, rto, { onRetry: (n) => notices.push(n) })
    const outcome = await sdk.submit(await records(), { jurisdiction: 'NSW' })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    assert.equal(notices.filter((n) => n.cause === 429).length, 2)
    assert.equal(proxy.forwarded('POST', bulkUploads).length, 1, 'the bulk upload reached the service once')
    assert.equal(proxy.forwarded('POST', singleUploads).length, 0, 'no single uploads')
  })

  it('429 on a POST that is not safe to repeat (submit) is retried too: the service refused it before processing', async () => {
    proxy.clear()
    proxy.injectTimes(
      2,
      { status: 429, headers: { 'retry-after': '0' } },
      (r) => r.method === 'POST' && r.path.endsWith('/submit'),
    )
    const outcome = await sdkFor(proxy.baseUrl, rto).submit(await records(), { jurisdiction: 'NSW' })
    assert.equal(outcome.submitted?.status, 'Submitted')
    assert.equal(proxy.forwarded('POST', /\/submit$/).length, 1)
  })

  it('503 and dropped connections on requests safe to repeat (GET, uploads) are retried; the workflow completes without duplicates', async () => {
    proxy.clear()
    proxy.injectTimes(2, { status: 503 }, (r) => r.method === 'GET' && r.path.endsWith('/validate'))
    proxy.injectTimes(2, 'drop', (r) => r.method === 'POST' && uploads.test(r.path))
    const outcome = await sdkFor(proxy.baseUrl, rto).submit(await records(), { jurisdiction: 'NSW' })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    assert.equal(proxy.forwarded('POST', /\/transaction-batch$/).length, 1, 'one batch')
    assert.equal(proxy.seen.filter((s) => uploads.test(s.path) && s.status === 'dropped').length, 2, 'uploads dropped')
  })

  it('a load balancer’s 502 and 504 are retried like 503 on requests safe to repeat, submit included (sent with an idempotency key)', async () => {
    proxy.clear()
    proxy.injectTimes(1, { status: 502 }, (r) => r.method === 'GET' && r.path.endsWith('/validate'))
    proxy.injectTimes(1, { status: 504 }, (r) => r.method === 'GET' && r.path.endsWith('/validate'))
    const notices: RetryNotice[] = []
    const outcome = await sdkFor(proxy.baseUrl, rto, { onRetry: (n) => notices.push(n) }).submit(await records(), {
      jurisdiction: 'NSW',
    })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    assert.deepEqual(
      notices.filter((n) => n.cause === 502 || n.cause === 504).map((n) => n.cause),
      [502, 504],
    )
    const sdk = sdkFor(proxy.baseUrl, rto)
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    proxy.clear()
    proxy.injectTimes(1, { status: 502 }, (r) => r.path.endsWith('/submit'))
    proxy.injectTimes(1, { status: 504 }, (r) => r.path.endsWith('/submit'))
    // Not validated: the service's own answer, 409, ends the retries.
    await assert.rejects(
      sdk.submitBatch('NSW', batch),
      (error: unknown) =>
        error instanceof ServiceError && error.status === 409 && error.reason === ConflictReason.ValidationNotRequested,
    )
    assert.deepEqual(
      proxy.seen.filter((s) => s.path.endsWith('/submit')).map((s) => s.status),
      [502, 504, 409],
    )
  })

  it('503 and dropped connections on submit are retried with one idempotency key across the attempts; a new call sends a new key', async () => {
    const sdk = sdkFor(proxy.baseUrl, rto)
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    proxy.clear()
    proxy.injectTimes(1, { status: 503 }, (r) => r.path.endsWith('/submit'))
    proxy.injectTimes(1, 'drop', (r) => r.path.endsWith('/submit'))
    await assert.rejects(
      sdk.submitBatch('NSW', batch),
      (error: unknown) => error instanceof ServiceError && error.status === 409,
    )
    await assert.rejects(sdk.submitBatch('NSW', batch))
    const submits = proxy.seen.filter((s) => s.path.endsWith('/submit'))
    assert.deepEqual(
      submits.map((s) => s.status),
      [503, 'dropped', 409, 409],
    )
    const [first, second, third, fourth] = submits.map((s) => s.idempotencyKey)
    assert.match(first ?? '', /^[0-9a-f-]{36}$/)
    assert.equal(second, first)
    assert.equal(third, first)
    assert.notEqual(fourth, first, 'a new call is a new request')
  })

  it('never retried: 400, 404, 409 and 413 come back at once as ServiceError with the problem details', async () => {
    const sdk = sdkFor(proxy.baseUrl, rto)
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    proxy.clear()
    const bad = { ...(await unitRecord()).student, familyName: ' spaced ' }
    await assert.rejects(
      sdk.students.upload('NSW', batch, bad),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.status === 400 &&
        error.problem?.errors?.some((e) => e.accessPath === '$.familyName') === true,
    )
    await assert.rejects(
      sdk.batch('NSW', randomUUID()),
      (error: unknown) => error instanceof ServiceError && error.status === 404,
    )
    await assert.rejects(
      sdk.submitBatch('NSW', batch),
      (error: unknown) =>
        error instanceof ServiceError && error.status === 409 && error.reason === ConflictReason.ValidationNotRequested,
    )
    proxy.injectTimes(1, { status: 413 })
    await assert.rejects(
      sdk.batch('NSW', batch),
      (error: unknown) => error instanceof ServiceError && error.status === 413,
    )
    assert.equal(proxy.seen.length, 4, 'each sent once')
  })

  it('retries stop after maxAttempts: the last 429 surfaces as a ServiceError', async () => {
    proxy.clear()
    proxy.inject((r) => (r.path === '/oauth2/token' ? undefined : { status: 429, headers: { 'retry-after': '0' } }))
    await assert.rejects(
      sdkFor(proxy.baseUrl, rto, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } }).createBatch('NSW'),
      (error: unknown) => error instanceof ServiceError && error.status === 429,
    )
    assert.equal(proxy.seen.filter((s) => s.path.endsWith('/transaction-batch')).length, 3)
    proxy.clear()
  })

  it('the token endpoint is retried on 429 and dropped connections like any request safe to repeat', async () => {
    proxy.clear()
    proxy.injectTimes(1, { status: 429, headers: { 'retry-after': '0' } }, (r) => r.path === '/oauth2/token')
    proxy.injectTimes(1, 'drop', (r) => r.path === '/oauth2/token')
    await sdkFor(proxy.baseUrl, rto).createBatch('NSW')
    assert.deepEqual(
      proxy.seen.filter((s) => s.path === '/oauth2/token').map((s) => s.status),
      [429, 'dropped', 200],
    )
    proxy.clear()
  })

  it('a refused connection before the service ever answered (a wrong URL, a service not running) fails at once as a NetworkError naming it; after an answer, a refused connection (a restart) is retried', async () => {
    const tcp = await new TcpProxy(Number(new URL(t.baseUrl).port)).start()
    const url = `http://127.0.0.1:${tcp.port}`
    let restart: ReturnType<typeof setTimeout> | undefined
    try {
      await tcp.stop()
      const notices: RetryNotice[] = []
      const started = Date.now()
      const error = await sdkFor(url, rto, { onRetry: (n) => notices.push(n) })
        .authenticate()
        .catch((e: unknown) => e)
      assert.ok(error instanceof NetworkError, String(error))
      assert.equal(error.code, 'ECONNREFUSED')
      assert.equal(
        error.message,
        `POST ${url}/oauth2/token got no answer: the connection to ${url} was refused (nothing listens there)`,
      )
      assert.equal(notices.length, 0, 'not retried')
      assert.ok(Date.now() - started < 1000)

      // The same client once the service has answered: the service restarting is waited for.
      await tcp.start()
      // Up to 40 attempts 100 to 200 ms apart: the restart below, 300 ms on, lands well inside them even on a busy machine.
      const sdk = sdkFor(url, rto, {
        onRetry: (n) => notices.push(n),
        retry: { baseDelayMs: 100, maxDelayMs: 200, maxAttempts: 40 },
      })
      await sdk.authenticate()
      await tcp.stop()
      const restarted = new Promise<void>((resolve) => {
        restart = setTimeout(() => void tcp.start().then(() => resolve()), 300)
      })
      await collect(sdk.batches('NSW'))
      await restarted
      assert.ok(notices.length > 0 && notices.every((n) => n.cause === 'network'), JSON.stringify(notices))
    } finally {
      // A failure before the restart must not leave it to open the proxy after the test has ended.
      clearTimeout(restart)
      await tcp.stop()
    }
  })

  it('Authentication 2: on a 401 the client obtains a new token and retries the same request once, on the same batch', async () => {
    proxy.clear()
    const sdk = sdkFor(proxy.baseUrl, rto)
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    proxy.injectTimes(1, { status: 401 }, (r) => r.method === 'POST' && uploads.test(r.path))
    const [first, ...rest] = await records()
    await sdk.upload('NSW', batch, first!)
    for (const record of rest) await sdk.upload('NSW', batch, record)
    assert.equal(proxy.seen.filter((s) => s.path === '/oauth2/token').length, 2, 'a second token after the 401')
    assert.equal((await sdk.batch('NSW', batch)).totalRecords, 9)
    assert.equal(proxy.forwarded('POST', /\/transaction-batch$/).length, 1, 'no new batch')
    proxy.clear()
    proxy.inject((r) => (r.path === '/oauth2/token' ? undefined : { status: 401 }))
    await assert.rejects(
      sdk.batch('NSW', batch),
      (error: unknown) => error instanceof ServiceError && error.status === 401,
    )
    assert.equal(proxy.seen.filter((s) => s.path !== '/oauth2/token').length, 2, 'retried once only')
    proxy.clear()
  })

  it('a token that really expires mid-workflow (service lifetime 5 s) is replaced and the workflow completes on one batch', async () => {
    const short = await startTestService({ env: { AUTH_TOKEN_TTL_SECONDS: '5' } })
    try {
      const shortRto = await newRto(short)
      let tokens = 0
      let first: string | undefined
      // Report a long lifetime to the client so its cached token outlives the service's 5 s.
      const optimistic: typeof fetch = async (input, init) => {
        const response = await fetch(input, init)
        if (!String(input).endsWith('/oauth2/token')) return response
        tokens++
        const body = (await response.json()) as Record<string, unknown>
        first ??= String(body.access_token)
        return new Response(JSON.stringify({ ...body, expires_in: 3600 }), {
          status: response.status,
          headers: { 'content-type': 'application/json' },
        })
      }
      const sdk = sdkFor(short.baseUrl, shortRto, { fetch: optimistic })
      const batch = (await sdk.createBatch('NSW')).transactionBatchToken
      // Until the service refuses the token the client holds: it has expired.
      await waitFor(
        'the first token expired',
        async () =>
          (await call(short.baseUrl, 'GET', `${V1}/NSW/transaction-batch`, { token: first })).status === 401
            ? true
            : undefined,
        { timeoutMs: 15_000, intervalMs: 100 },
      )
      const outcome = await sdk.submit(await records(), { jurisdiction: 'NSW', transactionBatchToken: batch })
      assert.equal(outcome.submitted?.status, 'Submitted')
      assert.ok(tokens >= 2, `a new token after expiry (${tokens} obtained)`)
      assert.equal((await collect(sdk.batches('NSW'))).length, 1)
    } finally {
      await short.close()
    }
  })

  it('request bodies go gzip-compressed; a body over the configured limits is refused before sending', async () => {
    proxy.clear()
    const sdk = sdkFor(proxy.baseUrl, rto, { limits: { decompressedBytes: 2000 } })
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    const { student } = await unitRecord()
    await sdk.students.upload('NSW', batch, student)
    const sent = proxy.forwarded('POST', uploads)[0]!
    assert.ok(sent.wireBytes < sent.bodyBytes, `compressed ${sent.wireBytes} < ${sent.bodyBytes}`)
    const big = { ...student, familyName: 'Long'.repeat(600) }
    await assert.rejects(
      sdk.students.upload('NSW', batch, big),
      (error: unknown) => error instanceof UsageError && /decompressed limit/.test(error.message),
    )
    const tight = sdkFor(proxy.baseUrl, rto, { limits: { compressedBytes: 100 } })
    await assert.rejects(
      tight.students.upload('NSW', batch, student),
      (error: unknown) => error instanceof UsageError && /compressed/.test(error.message),
    )
    assert.equal(proxy.forwarded('POST', uploads).length, 1, 'refused bodies never left')
  })

  it('collections are split at the limits: uid-match chunks stay within uidsPerRequest and the decompressed limit, and results come back whole and in order', async () => {
    const sdk = sdkFor(proxy.baseUrl, rto, { limits: { uidsPerRequest: 5, decompressedBytes: 300 } })
    const uids = Array.from({ length: 17 }, () => randomUUID())
    proxy.clear()
    const outcome = await sdk.reconcile({
      resourceType: 'Student',
      reportingPeriod: '202604',
      records: uids.map((resourceUID) => ({ resourceUID })),
    })
    const matches = proxy.forwarded('POST', /\/uid-match$/)
    assert.ok(matches.length >= Math.ceil(17 / 5), `${matches.length} requests`)
    for (const request of matches) assert.ok(request.bodyBytes <= 300, `${request.bodyBytes} bytes`)
    assert.deepEqual(
      outcome.notHeld.map((m) => m.resourceUID),
      uids,
    )
  })

  it('paging continues to the last page whatever the page size', async () => {
    const sdk = sdkFor(proxy.baseUrl, rto, { limits: { pageSize: 2 } })
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    const all = await records()
    for (const record of all) await sdk.upload('NSW', batch, record)
    const listed = await collect(sdk.subjectEnrolments.list('NSW', batch))
    assert.equal(listed.length, 2)
    proxy.clear()
    const batches = await collect(sdk.batches('NSW'))
    assert.ok(batches.length > 2)
    assert.equal(proxy.seen.filter((s) => s.path.includes('/transaction-batch?')).length, Math.ceil(batches.length / 2))
  })
})
