// Outages (issue 16): while the service cannot reach its database it answers 503 with Retry-After;
// the SDK waits and tries again on every request safe to repeat, the token request included, keeps
// the token it has, and carries on by itself once the database is back. The outage is a loopback
// proxy in front of the shared PostgreSQL, stopped and restarted by the test.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { collect, type RetryNotice } from '../src/index.ts'
import {
  minimalUnitRecord,
  newRto,
  sdkFor,
  startTestService,
  type TestRto,
  type TestService,
} from './support/service.ts'
import { createTestDatabase, onPostgres, pause, TcpProxy, type TestDatabase } from '../../../test/support/index.ts'

const skip = onPostgres
  ? false
  : 'an outage of the embedded PGlite cannot happen apart from the process; this needs TEST_DATABASE=postgres'
/** Enough patience for an outage of a few seconds: every wait is at least the service's Retry-After, capped at 1 s here. */
const retry = { maxAttempts: 12, baseDelayMs: 50, maxDelayMs: 1000 }
const OUTAGE_MS = 1500

describe('SDK through a database outage', { skip }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let t: TestService
  let rto: TestRto

  before(async () => {
    database = await createTestDatabase()
    proxy = await new TcpProxy(Number(new URL(database.env.DATABASE_URL!).port || 5432)).start()
    t = await startTestService({
      database: { ...database, env: { DATABASE_URL: proxy.urlThrough(database.env.DATABASE_URL!) } },
    })
    rto = await newRto(t)
  })
  after(async () => {
    await proxy?.start().catch(() => {})
    await t?.close()
    await proxy?.stop()
    await database?.drop()
  })

  /** An SDK whose fetch records what each request was answered. */
  function observedSdk() {
    const answers: { method: string; path: string; status: number }[] = []
    const notices: RetryNotice[] = []
    const sdk = sdkFor(t.baseUrl, rto, {
      retry,
      onRetry: (notice) => notices.push(notice),
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        answers.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, status: response.status })
        return response
      },
    })
    return { sdk, answers, notices }
  }

  /** Cuts the database for OUTAGE_MS while `work` runs, and answers what it resolved to. */
  async function throughOutage<T>(work: () => Promise<T>): Promise<T> {
    await proxy.stop()
    const pending = work()
    await pause(OUTAGE_MS) // the outage lasts this long: its length is what the test is about
    await proxy.start()
    return pending
  }

  it('reads and uploads started during the outage wait it out on the token they have, and complete once the database is back', async () => {
    const { sdk, answers, notices } = observedSdk()
    const batch = await sdk.createBatch('NSW')
    const [record] = await minimalUnitRecord()
    assert.ok(record)

    const started = Date.now()
    const [uploaded, listed] = await throughOutage(() =>
      Promise.all([sdk.upload('NSW', batch.transactionBatchToken, record), collect(sdk.batches('NSW'))]),
    )
    assert.ok(Date.now() - started < OUTAGE_MS + 5000, `completed ${Date.now() - started} ms after the outage began`)
    assert.equal(uploaded.transactionBatchToken, batch.transactionBatchToken)
    assert.equal(uploaded.changeTrackingIdentifier, record.changeTrackingIdentifier ?? null)
    assert.ok(listed.some((summary) => summary.transactionBatchToken === batch.transactionBatchToken))

    assert.ok(
      notices.some((notice) => notice.cause === 503),
      JSON.stringify(notices),
    )
    assert.deepEqual(
      answers.filter((answer) => answer.status >= 400 && answer.status !== 503),
      [],
      'nothing but 503 while the database was away: no 401, no 500',
    )
    assert.equal(
      answers.filter((answer) => answer.path === '/oauth2/token').length,
      1,
      'the token obtained before the outage is kept',
    )
  })

  it('the token request itself is retried on 503: a client starting during the outage gets its token and its answer once the database is back', async () => {
    const { sdk, answers, notices } = observedSdk()
    const batches = await throughOutage(() => collect(sdk.batches('NSW')))
    assert.ok(Array.isArray(batches))
    const tokenAnswers = answers.filter((answer) => answer.path === '/oauth2/token').map((answer) => answer.status)
    assert.ok(
      tokenAnswers.length >= 2 &&
        tokenAnswers.at(-1) === 200 &&
        tokenAnswers.slice(0, -1).every((status) => status === 503),
      JSON.stringify(tokenAnswers),
    )
    assert.ok(
      notices.some(
        (notice) => notice.method === 'POST' && notice.path.endsWith('/oauth2/token') && notice.cause === 503,
      ),
      'onRetry is told of token retries too',
    )
  })

  it('a submit started during the outage waits it out with its idempotency key, and is submitted once the database is back', async () => {
    const { sdk, answers } = observedSdk()
    const batch = (await sdk.createBatch('NSW')).transactionBatchToken
    await sdk.uploadMany('NSW', batch, await minimalUnitRecord())
    await sdk.validate('NSW', batch)
    const submitted = await throughOutage(() => sdk.submitBatch('NSW', batch))
    assert.equal(submitted.status, 'Submitted')
    const submits = answers.filter((answer) => answer.path.endsWith('/submit')).map((answer) => answer.status)
    assert.ok(
      submits.length >= 2 && submits.at(-1) === 200 && submits.slice(0, -1).every((status) => status === 503),
      JSON.stringify(submits),
    )
  })
})
