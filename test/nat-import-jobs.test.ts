// NAT imports as queued jobs (issue 31 item 8): with Prefer: respond-async, POST .../nat-import answers
// 202 with the import's status to poll (its progress, then the batch or the problem); one RTO's
// imports take turns while another RTO's run beside them, so a small import is never held behind
// another RTO's large ones. docs/decisions.md, "NAT imports: bounded, fair jobs with progress".
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { zipSync } from 'fflate'
import { sql } from 'kysely'
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { newRto, type TestRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { call, startTestService, V1, waitFor, type TestService } from './support/index.ts'
import { awaitNatImport } from '../src/modules/nat-bridge/index.ts'

const ZIP = 'application/zip'
type ReferenceData = Awaited<ReturnType<typeof readSeedReferenceData>>

describe('NAT imports as queued jobs (Prefer: respond-async, GET .../nat-import/{importId})', () => {
  let t: TestService
  let referenceData: ReferenceData
  const rtos: { rto: TestRto; token: string }[] = []

  before(async () => {
    t = await startTestService()
    referenceData = await readSeedReferenceData()
    for (let i = 0; i < 2; i++) {
      const rto = await newRto(t, String(randomInt(10_000, 100_000)))
      rtos.push({ rto, token: await t.token(rto.clientId, rto.clientSecret) })
    }
  })
  after(() => t.close())

  const zipFor = (rtoCode: string, activities: number, seed: string) =>
    natZipBytes(
      generateNatFileSet({ activities, seed, year: 2026, asOf: '2026-06-30', rtoCode, referenceData }).entries,
    )
  const queue = async (zip: Uint8Array, token: string) => {
    const response = await call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
      token,
      body: zip as BodyInit,
      headers: { 'content-type': ZIP, prefer: 'respond-async' },
    })
    assert.equal(response.status, 202, response.text)
    return response
  }
  const statusOf = async (importId: string, token: string) => {
    const response = await call(t.baseUrl, 'GET', `${V1}/VIC/nat-import/${importId}`, { token })
    assert.equal(response.status, 200, response.text)
    return response.json
  }
  const finished = async (importId: string, token: string, seen: string[] = []) => {
    for (const started = Date.now(); Date.now() - started < 120_000; ) {
      const status = await statusOf(importId, token)
      if (seen.at(-1) !== status.status) seen.push(status.status)
      if (status.status === 'Completed' || status.status === 'Failed') return status
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`import ${importId} not finished in 120 s`)
  }

  it('202 with the status to poll (Location), its progress, and at the end the batch and the answer; another RTO sees none of it', async () => {
    const [a, b] = rtos as [(typeof rtos)[0], (typeof rtos)[0]]
    const zip = zipFor(a.rto.rto, 40, 'jobs-one')
    const response = await queue(zip, a.token)
    assert.equal(response.headers.get('preference-applied'), 'respond-async')
    const { importId } = response.json
    assert.match(importId, /^[0-9a-f-]{36}$/)
    assert.equal(response.headers.get('location'), `${V1}/VIC/nat-import/${importId}`)
    assert.ok(['Queued', 'Running', 'Completed'].includes(response.json.status), response.json.status)
    assert.equal(response.json.jurisdiction, 'VIC')

    const seen: string[] = [response.json.status]
    const done = await finished(importId, a.token, seen)
    assert.equal(done.status, 'Completed', JSON.stringify(done))
    assert.equal(seen.at(-1), 'Completed')
    assert.ok(done.startedAt && done.finishedAt && done.startedAt <= done.finishedAt)
    assert.equal(done.progress.stage, 'done')
    assert.equal(done.progress.filesRead, done.result.files.length)
    assert.ok(done.progress.linesRead > 40, `lines read: ${done.progress.linesRead}`)
    assert.equal(done.progress.recordsStored, done.result.recordCount)
    assert.equal(done.transactionBatchToken, done.result.transactionBatchToken)
    const again = await call(t.baseUrl, 'GET', `${V1}/VIC/transaction-batch/${done.transactionBatchToken}/nat-import`, {
      token: a.token,
    })
    assert.deepEqual(again.json, done.result, 'the answer is the batch import answer')

    const other = await call(t.baseUrl, 'GET', `${V1}/VIC/nat-import/${importId}`, { token: b.token })
    assert.equal(other.status, 404, other.text)
    const elsewhere = await call(t.baseUrl, 'GET', `${V1}/NSW/nat-import/${importId}`, { token: a.token })
    assert.equal(elsewhere.status, 404, elsewhere.text)
    const notAnId = await call(t.baseUrl, 'GET', `${V1}/VIC/nat-import/not-an-id`, { token: a.token })
    assert.equal(notAnId.status, 404, notAnId.text)
  })

  it('content refused by the job ends Failed with the problem the synchronous answer gives, and stores nothing; what the directory refuses is refused at once', async () => {
    const [a] = rtos as [(typeof rtos)[0]]
    const batches = async () =>
      (await call(t.baseUrl, 'GET', `${V1}/transaction-batch?pageSize=100`, { token: a.token })).json
        .numberOfResults as number
    const before = await batches()
    const entries = generateNatFileSet({
      activities: 5,
      seed: 'jobs-utf16',
      year: 2026,
      asOf: '2026-06-30',
      rtoCode: a.rto.rto,
      referenceData,
    }).entries
    const utf16 = zipSync(
      Object.fromEntries(
        entries.map((entry) => [
          entry.name,
          entry.name === 'NAT00120.txt'
            ? Buffer.concat([
                Buffer.from([0xff, 0xfe]),
                Buffer.from(Buffer.from(entry.bytes).toString('latin1'), 'utf16le'),
              ])
            : entry.bytes,
        ]),
      ),
    )
    const response = await queue(utf16, a.token)
    const failed = await finished(response.json.importId, a.token)
    assert.equal(failed.status, 'Failed')
    assert.equal(failed.problem.type, '/problems/nat-set-unreadable')
    assert.equal(failed.problem.status, 400)
    assert.match(failed.problem.detail, /^NAT00120\.txt line 1 is UTF-16 text/)
    assert.equal(failed.transactionBatchToken, undefined)
    assert.equal(await batches(), before, 'no batch')

    const notZip = await call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
      token: a.token,
      body: 'not a zip',
      headers: { 'content-type': ZIP, prefer: 'respond-async' },
    })
    assert.equal(notZip.status, 400, notZip.text)
    assert.equal(notZip.json.type, '/problems/nat-set-unreadable')
  })

  it("one RTO's large imports take turns, and another RTO's small import runs beside them and finishes first", async () => {
    const [a, b] = rtos as [(typeof rtos)[0], (typeof rtos)[0]]
    const large = [zipFor(a.rto.rto, 2500, 'jobs-large-1'), zipFor(a.rto.rto, 2500, 'jobs-large-2')]
    const small = zipFor(b.rto.rto, 5, 'jobs-small')
    const queuedLarge = []
    for (const zip of large) queuedLarge.push((await queue(zip, a.token)).json.importId as string)
    const queuedSmall = (await queue(small, b.token)).json.importId as string

    const [first, second, smallDone] = await Promise.all([
      finished(queuedLarge[0]!, a.token),
      finished(queuedLarge[1]!, a.token),
      finished(queuedSmall, b.token),
    ])
    for (const done of [first, second, smallDone]) assert.equal(done.status, 'Completed', JSON.stringify(done.problem))
    // One RTO's imports one at a time: the second started once the first had finished.
    assert.ok(second.startedAt >= first.finishedAt, `${second.startedAt} >= ${first.finishedAt}`)
    // The other RTO's small import, queued last, was not held behind them.
    assert.ok(smallDone.finishedAt < second.finishedAt, `${smallDone.finishedAt} < ${second.finishedAt}`)
    assert.ok(smallDone.startedAt < second.startedAt, `${smallDone.startedAt} < ${second.startedAt}`)
  })

  it('with no worker running the queue, the import stays Queued, and a request waiting for it is told where to follow it', async () => {
    const idle = await startTestService({ service: { workers: false } })
    try {
      const rto = await newRto(idle, String(randomInt(10_000, 100_000)))
      const token = await idle.token(rto.clientId, rto.clientSecret)
      const response = await call(idle.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
        token,
        body: zipFor(rto.rto, 5, 'jobs-idle') as BodyInit,
        headers: { 'content-type': ZIP, prefer: 'respond-async' },
      })
      assert.equal(response.status, 202, response.text)
      assert.equal(response.json.status, 'Queued')
      const { importId } = response.json
      await new Promise((resolve) => setTimeout(resolve, 300))
      const still = await call(idle.baseUrl, 'GET', `${V1}/VIC/nat-import/${importId}`, { token })
      assert.equal(still.json.status, 'Queued')
      assert.deepEqual(still.json.progress, {})
      const actor = { rto: rto.rto, clientId: rto.clientId, scopes: new Set(['vet:report']) }
      await assert.rejects(
        awaitNatImport(idle.service.database.db, actor, 'VIC', importId, { maxWaitMs: 200 }),
        (error: Error & { kind?: string }) => {
          assert.equal(error.kind, 'service-unavailable')
          assert.match(
            error.message,
            new RegExp(`still queued after 0 s: follow it at GET .../VIC/nat-import/${importId}`),
          )
          return true
        },
      )
    } finally {
      await idle.close()
    }
  })
})

// A worker dying part-way, simulated by the job's test hook: it throws once the import has told
// 'done' (its batch, records and nat_import row written, the job not yet ended), as many times as a
// test asks. docs/decisions.md, "NAT imports: bounded, fair jobs with progress", paragraph "Progress".
describe('a NAT import job whose handler fails other than by a refusal', () => {
  const crash = { remaining: 0, attempts: 0, at: 'done' as 'done' | 'after-import' }
  let t: TestService
  let referenceData: ReferenceData

  before(async () => {
    t = await startTestService({
      natImport: {
        onProgress: (progress) => {
          if (progress.stage === 'done' && crash.at === 'done') crashHere()
        },
        afterImport: async () => {
          if (crash.at === 'after-import') crashHere()
        },
      },
    })
    referenceData = await readSeedReferenceData()
  })
  after(() => t.close())

  const crashHere = () => {
    crash.attempts++
    if (crash.remaining > 0) {
      crash.remaining--
      throw new Error('the worker died part-way (test)')
    }
  }
  const crashing = (times: number, at: typeof crash.at = 'done') => {
    crash.remaining = times
    crash.attempts = 0
    crash.at = at
  }
  const rtoWithToken = async () => {
    const rto = await newRto(t, String(randomInt(10_000, 100_000)))
    return { rto, token: await t.token(rto.clientId, rto.clientSecret) }
  }
  const zipFor = (rtoCode: string, seed: string) =>
    natZipBytes(
      generateNatFileSet({ activities: 5, seed, year: 2026, asOf: '2026-06-30', rtoCode, referenceData }).entries,
    )
  const post = (zip: Uint8Array, token: string, headers: Record<string, string> = {}) =>
    call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
      token,
      body: zip as BodyInit,
      headers: { 'content-type': ZIP, ...headers },
    })
  const finished = (importId: string, token: string) =>
    waitFor(
      `NAT import ${importId} to end`,
      async () => {
        const response = await call(t.baseUrl, 'GET', `${V1}/VIC/nat-import/${importId}`, { token })
        assert.equal(response.status, 200, response.text)
        return ['Completed', 'Failed'].includes(response.json.status) ? response.json : undefined
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    )
  /** What the RTO has stored: its batches, their records, their NAT imports. */
  const stored = async (rto: string) =>
    (
      await sql<{ batches: number; records: number; imports: number }>`
        SELECT (SELECT count(*) FROM transaction_batch WHERE rto_id = ${rto})::int AS batches,
               (SELECT count(*) FROM batch_record WHERE rto_id = ${rto})::int AS records,
               (SELECT count(*) FROM nat_import WHERE rto_id = ${rto})::int AS imports`.execute(t.service.database.db)
    ).rows[0]!
  const recordsOf = async (rto: string, token: string) =>
    (
      await sql<{ record: string }>`
        SELECT resource_type || ' ' || resource_uid::text AS record FROM batch_record
         WHERE rto_id = ${rto} AND transaction_batch_token = ${token} ORDER BY 1`.execute(t.service.database.db)
    ).rows.map((row) => row.record)

  it('failing on every attempt: after the last it ends Failed with internal-error, nothing stored, and a synchronous request gets that problem', async () => {
    const { rto, token } = await rtoWithToken()
    crashing(3)
    const response = await post(zipFor(rto.rto, 'jobs-crash-async'), token, { prefer: 'respond-async' })
    assert.equal(response.status, 202, response.text)
    const failed = await finished(response.json.importId, token)
    assert.equal(failed.status, 'Failed', JSON.stringify(failed))
    assert.equal(crash.attempts, 3, 'the first attempt and two retries')
    assert.equal(failed.problem.type, '/problems/internal-error')
    assert.equal(failed.problem.status, 500)
    assert.match(failed.problem.detail, /3 times; nothing was stored/)
    assert.equal(failed.transactionBatchToken, undefined)
    assert.equal(failed.result, undefined)
    assert.deepEqual(await stored(rto.rto), { batches: 0, records: 0, imports: 0 })

    // Without Prefer, the request waits for its job and answers the job's problem, not a wait to 503.
    crashing(3)
    const sync = await post(zipFor(rto.rto, 'jobs-crash-sync'), token)
    assert.equal(sync.status, 500, sync.text)
    assert.equal(sync.json.type, '/problems/internal-error')
    assert.match(sync.json.detail, /3 times; nothing was stored/)
    assert.equal(crash.attempts, 3)
    assert.deepEqual(await stored(rto.rto), { batches: 0, records: 0, imports: 0 })
  })

  it('failing once then succeeding: Completed with exactly one batch of the expected records', async () => {
    const { rto, token } = await rtoWithToken()
    const zip = zipFor(rto.rto, 'jobs-crash-once')
    crashing(1)
    const response = await post(zip, token, { prefer: 'respond-async' })
    assert.equal(response.status, 202, response.text)
    const done = await finished(response.json.importId, token)
    assert.equal(done.status, 'Completed', JSON.stringify(done.problem))
    assert.equal(crash.attempts, 2, 'the retry completed')
    assert.ok(done.result.recordCount > 0)
    assert.deepEqual(await stored(rto.rto), { batches: 1, records: done.result.recordCount, imports: 1 })
    const records = await recordsOf(rto.rto, done.transactionBatchToken)
    assert.equal(records.length, done.result.recordCount, 'every record of the only batch is the one the answer counts')

    // The expected records: what the same zip imports with no failure.
    crashing(0)
    const clean = await post(zip, token)
    assert.equal(clean.status, 201, clean.text)
    assert.deepEqual(await recordsOf(rto.rto, clean.json.transactionBatchToken), records)
    assert.deepEqual(clean.json.recordsByType, done.result.recordsByType)
  })

  it('failing after its batch was stored, before the job ended: the retry discards that batch, and a last failure leaves none', async () => {
    const { rto, token } = await rtoWithToken()
    const zip = zipFor(rto.rto, 'jobs-crash-stored')
    crashing(1, 'after-import')
    const once = await post(zip, token, { prefer: 'respond-async' })
    assert.equal(once.status, 202, once.text)
    const done = await finished(once.json.importId, token)
    assert.equal(done.status, 'Completed', JSON.stringify(done.problem))
    assert.equal(crash.attempts, 2)
    assert.deepEqual(await stored(rto.rto), { batches: 1, records: done.result.recordCount, imports: 1 })
    assert.equal((await recordsOf(rto.rto, done.transactionBatchToken)).length, done.result.recordCount)

    crashing(3, 'after-import')
    const always = await post(zip, token, { prefer: 'respond-async' })
    const failed = await finished(always.json.importId, token)
    assert.equal(failed.status, 'Failed', JSON.stringify(failed))
    assert.equal(crash.attempts, 3)
    assert.equal(failed.problem.type, '/problems/internal-error')
    assert.equal(failed.transactionBatchToken, undefined)
    assert.deepEqual(
      await stored(rto.rto),
      { batches: 1, records: done.result.recordCount, imports: 1 },
      "only the first import's batch",
    )
  })
})
