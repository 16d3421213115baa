// The SDK's uploadMany against a real service: the bulk upload (POST .../records, NDJSON) when the
// service's OpenAPI description offers it, requests cut to the record limit (the client's or the
// service's, the lower) and to both byte limits, records one by one when the service does not offer
// it, a refused request reported by record index with what was stored before it, and submit() using it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { BULK_UPLOAD_PATH, BulkUploadError, type ResourceRecord, type Student } from '../src/index.ts'
import {
  newRto,
  recordsOf,
  sdkFor,
  startTestService,
  unitRecord,
  type TestRto,
  type TestService,
} from './support/service.ts'

const bulkPath = /\/vet-provider\/v1\/NSW\/transaction-batch\/[^/]+\/records$/

interface Sent {
  method: string
  path: string
  body: Buffer | undefined
}

/** A fetch that records every request (decompressed body) and can answer /openapi.json 404, as an older service. */
function recordingFetch(sent: Sent[], { withoutBulk = false } = {}): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input))
    const raw = init?.body instanceof Uint8Array ? Buffer.from(init.body) : undefined
    sent.push({ method: init?.method ?? 'GET', path: url.pathname, body: raw ? gunzipSync(raw) : undefined })
    if (withoutBulk && url.pathname === '/openapi.json') return new Response('{}', { status: 404 })
    return fetch(input, init)
  }
}

const studentNumber = (n: number) => `5e000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe('SDK uploadMany: the bulk upload when the service offers it', () => {
  let t: TestService
  let rto: TestRto
  let student: Student
  before(async () => {
    t = await startTestService()
    rto = await newRto(t)
    student = (await unitRecord()).student
  })
  after(() => t.close())

  const students = (count: number, from = 0): Student[] =>
    Array.from({ length: count }, (_, i) => ({ ...student, studentUID: studentNumber(from + i) }))
  const batchCounts = async (sdk: ReturnType<typeof sdkFor>, token: string) =>
    (await sdk.batch('NSW', token)).recordCounts

  it('records go through the bulk upload in one request when they fit, and the offer is read from /openapi.json once', async () => {
    const sent: Sent[] = []
    const sdk = sdkFor(t.baseUrl, rto, { fetch: recordingFetch(sent) })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    const unit = recordsOf(await unitRecord())
    const first = await sdk.uploadMany('NSW', transactionBatchToken, [...unit, ...students(991)])
    const second = await sdk.uploadMany('NSW', transactionBatchToken, students(10, 2_000))
    assert.deepEqual(
      [first.bulk, first.requests, first.created, first.replaced, first.recordCount],
      [true, 1, 1_000, 0, 1_000],
    )
    assert.deepEqual(first.byResourceType?.SubjectEnrolment, { created: 2, replaced: 0 })
    assert.equal(second.requests, 1)
    assert.equal(sent.filter((s) => s.path === '/openapi.json').length, 1)
    const uploads = sent.filter((s) => s.method === 'POST' && s.path.includes('/transaction-batch/'))
    assert.ok(
      uploads.every((s) => bulkPath.test(s.path)),
      'only bulk requests',
    )
    assert.equal(uploads.length, 2)
    const lines = uploads[0]!.body!.toString('utf8').trimEnd().split('\n')
    assert.equal(lines.length, 1_000)
    assert.deepEqual(Object.keys(JSON.parse(lines[0]!)), ['resourceType', 'record'])
    const counts = await batchCounts(sdk, transactionBatchToken)
    assert.equal(counts.Student, 1_002)
    assert.equal(counts.SubjectEnrolment, 2)
    // One more record than a request carries by default (1,000, below every limit here): two requests.
    const third = await sdk.uploadMany('NSW', transactionBatchToken, students(1_001, 3_000))
    assert.deepEqual([third.requests, third.created], [2, 1_001])
  })

  it("requests are cut to the client's record limit and both byte limits, and each one respects them", async () => {
    const sent: Sent[] = []
    const limits = { recordsPerRequest: 300, compressedBytes: 40_000, decompressedBytes: 1_000_000 }
    const sdk = sdkFor(t.baseUrl, rto, { fetch: recordingFetch(sent), limits })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    // Records that compress little: a changeTrackingIdentifier of random-looking text each.
    const records = students(2_000).map((s, i) => ({
      ...s,
      changeTrackingIdentifier: `${i}:${Buffer.from(studentNumber(i * 7919)).toString('base64')}${Math.random().toString(36)}`,
    }))
    const events: { done: number; total: number }[] = []
    const outcome = await sdk.uploadMany('NSW', transactionBatchToken, records, {
      onProgress: (event) => {
        if (event.phase === 'upload') events.push({ done: event.done, total: event.total })
      },
    })
    const bulk = sent.filter((s) => bulkPath.test(s.path))
    assert.equal(outcome.requests, bulk.length)
    assert.ok(bulk.length >= 7, `${bulk.length} requests`)
    let total = 0
    for (const request of sent.filter((s) => bulkPath.test(s.path))) {
      const lines = request.body!.toString('utf8').trimEnd().split('\n')
      assert.ok(lines.length <= 300, `${lines.length} lines`)
      assert.ok(request.body!.length <= 1_000_000)
      total += lines.length
    }
    assert.equal(total, 2_000)
    assert.deepEqual(events.at(-1), { done: 2_000, total: 2_000 })
    assert.equal((await batchCounts(sdk, transactionBatchToken)).Student, 2_000)
  })

  it('no request is larger compressed than the compressed limit: requests shrink until they fit', async () => {
    const sent: Sent[] = []
    const wire: number[] = []
    const fetcher = recordingFetch(sent)
    const sdk = sdkFor(t.baseUrl, rto, {
      limits: { compressedBytes: 20_000 },
      fetch: async (input, init) => {
        if (init?.body instanceof Uint8Array && bulkPath.test(new URL(String(input)).pathname))
          wire.push(init.body.length)
        return fetcher(input, init)
      },
    })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    const records = students(1_500).map((s, i) => ({ ...s, changeTrackingIdentifier: `${Math.random()}-${i}` }))
    const outcome = await sdk.uploadMany('NSW', transactionBatchToken, records)
    assert.ok(wire.length > 1 && wire.every((bytes) => bytes <= 20_000), JSON.stringify(wire))
    assert.equal(outcome.created, 1_500)
  })

  it('a later record with the same UID replaces an earlier one, across requests too, even when the earlier request is slower', async () => {
    // The first request is held back: sent alongside it, the second would be stored first and then replaced.
    let first = true
    const sdk = sdkFor(t.baseUrl, rto, {
      limits: { recordsPerRequest: 2 },
      fetch: async (input, init) => {
        if (first && bulkPath.test(new URL(String(input)).pathname)) {
          first = false
          await new Promise((resolve) => setTimeout(resolve, 300))
        }
        return fetch(input, init)
      },
    })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    const [a, b] = students(2, 3_000)
    const outcome = await sdk.uploadMany('NSW', transactionBatchToken, [
      { ...a!, changeTrackingIdentifier: 'a1' },
      { ...b!, changeTrackingIdentifier: 'b1' },
      { ...a!, changeTrackingIdentifier: 'a2' },
    ])
    assert.deepEqual([outcome.requests, outcome.created, outcome.replaced], [2, 2, 1])
    const stored = await sdk.students.get('NSW', transactionBatchToken, a!.studentUID)
    assert.equal(stored.changeTrackingIdentifier, 'a2')
  })

  it('bulk requests go bulkConcurrency at a time (default 3), each answered, and all records stored', async () => {
    let inFlight = 0
    let most = 0
    const fetcher: typeof fetch = async (input, init) => {
      if (!bulkPath.test(new URL(String(input)).pathname)) return fetch(input, init)
      most = Math.max(most, ++inFlight)
      try {
        await new Promise((resolve) => setTimeout(resolve, 50))
        return await fetch(input, init)
      } finally {
        inFlight--
      }
    }
    for (const [bulkConcurrency, expected] of [
      [undefined, 3],
      [1, 1],
      [5, 5],
    ] as const) {
      most = 0
      const sdk = sdkFor(t.baseUrl, rto, { limits: { recordsPerRequest: 50 }, fetch: fetcher })
      const { transactionBatchToken } = await sdk.createBatch('NSW')
      const outcome = await sdk.uploadMany('NSW', transactionBatchToken, students(500, 20_000), { bulkConcurrency })
      assert.deepEqual(
        [outcome.requests, outcome.created, most],
        [10, 500, expected],
        `bulkConcurrency ${bulkConcurrency}`,
      )
      assert.equal((await batchCounts(sdk, transactionBatchToken)).Student, 500)
    }
    const sdk = sdkFor(t.baseUrl, rto)
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    await assert.rejects(
      sdk.uploadMany('NSW', transactionBatchToken, students(2), { bulkConcurrency: 0 }),
      /bulkConcurrency/,
    )
  })

  it('a refused request with others in flight: BulkUploadError counts the records stored before it, and none of the refused request is stored', async () => {
    const sdk = sdkFor(t.baseUrl, rto, { limits: { recordsPerRequest: 300 } })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    const records: ResourceRecord[] = students(1_500, 30_000)
    records[650] = { ...students(1, 39_999)[0]!, gender: 'Neither' } as unknown as ResourceRecord
    const error = await sdk.uploadMany('NSW', transactionBatchToken, records).then(
      () => assert.fail('expected a refusal'),
      (caught: unknown) => caught,
    )
    assert.ok(error instanceof BulkUploadError, String(error))
    assert.equal(error.stored, 600)
    assert.deepEqual(
      error.refused.map((r) => r.index),
      [650],
    )
    // Requests 1 and 2 are stored and request 3 (records 600 to 899) refused, none of it stored;
    // requests 4 and 5 may have gone in the slots 1 and 2 freed before the refusal came back.
    const count = (await batchCounts(sdk, transactionBatchToken)).Student ?? 0
    assert.ok([600, 900, 1_200].includes(count), `${count} stored`)
    await assert.rejects(sdk.students.get('NSW', transactionBatchToken, studentNumber(30_610)), { status: 404 })
    assert.equal(
      (await sdk.students.get('NSW', transactionBatchToken, studentNumber(30_599))).studentUID,
      studentNumber(30_599),
    )
  })

  it('a refused request throws BulkUploadError naming the refused records by index, with the earlier requests stored', async () => {
    const sdk = sdkFor(t.baseUrl, rto, { limits: { recordsPerRequest: 300 } })
    const { transactionBatchToken } = await sdk.createBatch('NSW')
    const records: ResourceRecord[] = students(1_000, 4_000)
    records[650] = { ...students(1, 9_999)[0]!, gender: 'Neither' } as unknown as ResourceRecord
    const error = await sdk.uploadMany('NSW', transactionBatchToken, records, { bulkConcurrency: 1 }).then(
      () => assert.fail('expected a refusal'),
      (caught: unknown) => caught,
    )
    assert.ok(error instanceof BulkUploadError, String(error))
    assert.equal(error.status, 400)
    assert.equal(error.stored, 600)
    assert.equal(error.refusedCount, 1)
    assert.deepEqual(
      error.refused.map((r) => [r.index, r.resourceUID, r.errors.map((e) => e.accessPath)]),
      [[650, studentNumber(9_999), ['$.record.gender']]],
    )
    assert.equal((await batchCounts(sdk, transactionBatchToken)).Student, 600)
  })

  it('a service whose description has no bulk upload gets one request per record; bulk: false does the same', async () => {
    for (const [label, withoutBulk, bulk] of [
      ['not offered', true, undefined],
      ['bulk: false', false, false],
    ] as const) {
      const sent: Sent[] = []
      const sdk = sdkFor(t.baseUrl, rto, { fetch: recordingFetch(sent, { withoutBulk }) })
      assert.equal(await sdk.bulkUploadOffer().then((offer) => offer !== undefined), !withoutBulk, label)
      const { transactionBatchToken } = await sdk.createBatch('NSW')
      const outcome = await sdk.uploadMany('NSW', transactionBatchToken, students(12, 5_000), {
        ...(bulk === undefined ? {} : { bulk }),
      })
      assert.deepEqual([outcome.bulk, outcome.requests, outcome.created], [false, 12, undefined], label)
      assert.equal(sent.filter((s) => bulkPath.test(s.path)).length, 0, label)
      assert.equal(sent.filter((s) => s.method === 'POST' && s.path.endsWith('/student')).length, 12, label)
      assert.equal((await batchCounts(sdk, transactionBatchToken)).Student, 12, label)
    }
  })

  it("the service's own record limit (x-maxRecords in its description) caps requests when lower than the client's", async () => {
    const small = await startTestService({ env: { LIMIT_BULK_RECORDS: '250' } })
    try {
      const sent: Sent[] = []
      const sdk = sdkFor(small.baseUrl, await newRto(small), { fetch: recordingFetch(sent) })
      assert.deepEqual(await sdk.bulkUploadOffer(), { maxRecords: 250 })
      const { transactionBatchToken } = await sdk.createBatch('NSW')
      const outcome = await sdk.uploadMany('NSW', transactionBatchToken, students(1_000, 6_000))
      assert.deepEqual([outcome.requests, outcome.created], [4, 1_000])
    } finally {
      await small.close()
    }
  })

  it('submit() uploads through the bulk upload when the service offers it', async () => {
    const sent: Sent[] = []
    const sdk = sdkFor(t.baseUrl, await newRto(t), { fetch: recordingFetch(sent) })
    const records = recordsOf(await unitRecord())
    const outcome = await sdk.submit(records, { jurisdiction: 'NSW' })
    assert.equal(outcome.submitted?.numberOfRecordsSubmitted, 9)
    const uploads = sent.filter((s) => s.method === 'POST' && /\/transaction-batch\/[^/]+\/[a-z]+$/.test(s.path))
    assert.deepEqual(
      uploads.map((s) => s.path.split('/').at(-1)),
      ['records', 'validate', 'submit'],
    )
    assert.equal(BULK_UPLOAD_PATH.endsWith('/records'), true)
  })
})
