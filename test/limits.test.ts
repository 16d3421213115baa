// Limits (spec: Limits, Errors 413): the 1 MiB wire limit at protocol level (no problem body),
// the 10 MiB decompressed limit with BRTS90400, compressed bodies, and the paging bounds.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import {
  call,
  registerProbeRoutes,
  startTestService,
  storedProbeRecords,
  validRecord,
  type TestService,
} from './support/index.ts'

const MiB = 1024 * 1024

/** Sends a body as chunks without a Content-Length (Transfer-Encoding: chunked). */
function postChunked(
  url: string,
  token: string,
  chunks: Buffer[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers } },
      (response) => {
        let body = ''
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    request.on('error', reject)
    let i = 0
    const writeNext = () => {
      while (i < chunks.length) {
        if (!request.write(chunks[i++]!)) return void request.once('drain', writeNext)
      }
      request.end()
    }
    writeNext()
  })
}

describe('request size limits', () => {
  let t: TestService
  let token: string
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
    token = await t.token()
  })
  after(() => t.close())
  const stored = () => storedProbeRecords(t.baseUrl, token)

  // A valid record padded with a long (allowed) name, to reach a given size.
  const paddedRecord = (bytes: number, uid = 'bbbbbbbb-0000-4000-8000-000000000001') =>
    Buffer.from(JSON.stringify(validRecord({ recordUID: uid, name: 'x'.repeat(bytes) })))

  it('compressed bodies (gzip, deflate, br) are accepted', async () => {
    const body = paddedRecord(100)
    for (const [encoding, compress, uid] of [
      ['gzip', gzipSync, '1'],
      ['deflate', deflateSync, '2'],
      ['br', brotliCompressSync, '3'],
    ] as const) {
      const record = JSON.parse(body.toString())
      record.recordUID = `bbbbbbbb-0000-4000-8000-00000000010${uid}`
      const response = await call(t.baseUrl, 'POST', '/probe/records', {
        token,
        body: compress(Buffer.from(JSON.stringify(record))),
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      })
      assert.equal(response.status, 201, encoding)
    }
  })

  it('an unsupported content encoding is 415', async () => {
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: paddedRecord(10),
      headers: { 'content-type': 'application/json', 'content-encoding': 'zstd-x' },
    })
    assert.equal(response.status, 415)
    assert.equal(response.json.type, '/problems/unsupported-media-type')
  })

  it('a body just under 1 MiB on the wire is accepted', async () => {
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: paddedRecord(MiB - 500, 'bbbbbbbb-0000-4000-8000-000000000201'),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 201)
  })

  it('Limits: a declared body above 1 MiB is 413 at protocol level, with no problem body, and nothing is stored', async () => {
    const before = await stored()
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: paddedRecord(MiB + 10, 'bbbbbbbb-0000-4000-8000-000000000202'),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 413)
    assert.equal(response.text, '')
    assert.equal(await stored(), before)
  })

  it('Limits: a chunked body that grows past 1 MiB without declaring a length is 413 with no problem body', async () => {
    const before = await stored()
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.from(i === 0 ? '{"name":"' : 'y'.repeat(64 * 1024)))
    const response = await postChunked(`${t.baseUrl}/probe/records`, token, chunks)
    assert.equal(response.status, 413)
    assert.equal(response.body, '')
    assert.equal(await stored(), before)
  })

  it('Errors 413: a gzip body that decompresses above 10 MiB is 413 problem details with BRTS90400 (decompression bomb)', async () => {
    const before = await stored()
    const bomb = gzipSync(Buffer.alloc(64 * MiB, ' ')) // ~64 KiB on the wire, 64 MiB decoded
    assert.ok(bomb.length < MiB)
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: bomb,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 413)
    assert.equal(response.json.type, '/problems/payload-too-large')
    assert.equal(response.json.errorNumber, 'BRTS90400')
    assert.equal(await stored(), before)
  })

  it('Errors 413: a compressed body of 10.5 MiB of real JSON is refused while one of 9 MiB is accepted', async () => {
    const accepted = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: gzipSync(paddedRecord(9 * MiB, 'bbbbbbbb-0000-4000-8000-000000000301')),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    assert.equal(accepted.status, 201)
    const refused = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: gzipSync(paddedRecord(10.5 * MiB, 'bbbbbbbb-0000-4000-8000-000000000302')),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    assert.equal(refused.status, 413)
    assert.equal(refused.json.errorNumber, 'BRTS90400')
  })
})

describe('paging', () => {
  let t: TestService
  let token: string
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
    token = await t.token()
    for (let i = 0; i < 12; i++) {
      await call(t.baseUrl, 'POST', '/probe/records', {
        token,
        json: validRecord({ recordUID: `cccccccc-0000-4000-8000-0000000000${String(i).padStart(2, '0')}` }),
      })
    }
  })
  after(() => t.close())
  const page = (query: string) => call(t.baseUrl, 'GET', `/probe/records${query}`, { token })

  it('Paged response envelope: defaults are page 1 of size 10, with totals', async () => {
    const response = await page('')
    assert.equal(response.status, 200)
    assert.deepEqual(
      { ...response.json, results: response.json.results.length },
      { pageNumber: 1, numberOfPages: 2, numberOfResults: 12, pageSize: 10, results: 10 },
    )
  })

  it('the last page holds the remainder, and a page past the end is 200 with empty results', async () => {
    assert.equal((await page('?pageNumber=2')).json.results.length, 2)
    const past = await page('?pageNumber=3')
    assert.equal(past.status, 200)
    assert.deepEqual(past.json.results, [])
    assert.equal(past.json.numberOfResults, 12)
  })

  it('Limits: pageNumber up to 2147483647 and pageSize up to 500 are accepted', async () => {
    assert.equal((await page('?pageNumber=2147483647&pageSize=500')).status, 200)
  })

  it('Errors 400: out-of-range or non-integer page values are rejected', async () => {
    for (const query of [
      '?pageNumber=0x10',
      '?pageSize=1e1',
      '?pageNumber=1.0',
      '?pageNumber=0',
      '?pageNumber=-1',
      '?pageNumber=2147483648',
      '?pageNumber=1.5',
      '?pageNumber=abc',
      '?pageSize=0',
      '?pageSize=501',
      '?pageSize=10.5',
    ]) {
      const response = await page(query)
      assert.equal(response.status, 400, query)
      assert.equal(response.json.type, '/problems/structural-validation')
      assert.match(response.json.errors[0].accessPath, /^query\.page(Number|Size)$/)
    }
  })

  it('an unknown query parameter is rejected', async () => {
    const response = await page('?pagesize=5')
    assert.equal(response.status, 400)
    assert.equal(response.json.errors[0].accessPath, 'query.pagesize')
  })
})
