// Errors (spec: Errors): RFC 9457 problem details for every bad input, every structural failure
// listed with its access path, the string rules, and nothing stored when a request is refused.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  call,
  registerProbeRoutes,
  startTestService,
  storedProbeRecords,
  validRecord,
  type TestService,
} from './support/index.ts'

describe('problem details and structural validation', () => {
  let t: TestService
  let token: string
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
    token = await t.token()
  })
  after(() => t.close())

  const post = (json: unknown) => call(t.baseUrl, 'POST', '/probe/records', { token, json })
  const stored = () => storedProbeRecords(t.baseUrl, token)
  const paths = (response: { json: { errors?: { accessPath: string }[] } }) =>
    (response.json.errors ?? []).map((e) => e.accessPath).sort()

  it('a valid record is accepted (the baseline the other cases differ from)', async () => {
    const response = await post(validRecord({ recordUID: 'aaaaaaaa-0000-4000-8000-000000000001' }))
    assert.equal(response.status, 201)
  })

  it('every problem response has type, title, status, detail, instance and traceId, as application/problem+json', async () => {
    const response = await call(t.baseUrl, 'GET', '/no/such/route?x=1')
    assert.equal(response.status, 404)
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.deepEqual(Object.keys(response.json).sort(), ['detail', 'instance', 'status', 'title', 'traceId', 'type'])
    assert.equal(response.json.instance, '/no/such/route')
    assert.equal(response.json.traceId, response.headers.get('x-request-id'))
  })

  it('an unknown method on a known path is a 404 problem', async () => {
    const response = await call(t.baseUrl, 'PATCH', '/probe/records', { token })
    assert.equal(response.status, 404)
    assert.equal(response.json.type, '/problems/not-found')
  })

  it('a problem type URI documents itself', async () => {
    const response = await call(t.baseUrl, 'GET', '/problems/structural-validation')
    assert.equal(response.status, 200)
    assert.equal(response.json.status, 400)
    assert.ok(response.json.description.length > 20)
  })

  it('Errors 400: malformed JSON is a problem, and nothing is stored', async () => {
    const before = await stored()
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: '{"recordUID": ',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 400)
    assert.equal(response.json.type, '/problems/malformed-json')
    assert.equal(await stored(), before)
  })

  it('a body that is not JSON is 415', async () => {
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: 'recordUID=1',
      headers: { 'content-type': 'text/csv' },
    })
    assert.equal(response.status, 415)
    assert.equal(response.json.type, '/problems/unsupported-media-type')
  })

  it('Errors 400: every structural failure is listed, not only the first, with JSONPath-style access paths', async () => {
    const before = await stored()
    const response = await post({
      recordUID: 'not-a-uuid',
      studentStatus: 'Graduated',
      startDate: '2026-02-30',
      count: '5',
      locations: [{ deliveryLocationUID: 'x' }],
    })
    assert.equal(response.status, 400)
    assert.equal(response.json.type, '/problems/structural-validation')
    assert.deepEqual(paths(response), [
      '$.count',
      '$.locations[0].deliveryLocationUID',
      '$.name',
      '$.recordUID',
      '$.startDate',
      '$.studentStatus',
    ])
    assert.equal(await stored(), before)
  })

  it('Errors 400: an unknown property is rejected with its access path, never silently dropped', async () => {
    const response = await post({
      ...validRecord(),
      nickname: 'x',
      locations: [{ deliveryLocationUID: 'aaaaaaaa-0000-4000-8000-000000000009', colour: 'red' }],
    })
    assert.equal(response.status, 400)
    assert.deepEqual(paths(response), ['$.locations[0].colour', '$.nickname'])
    assert.ok(response.json.errors.every((e: { message: string }) => e.message === 'is not a known property'))
  })

  it('Errors 400: leading or trailing spaces in a string are rejected', async () => {
    for (const name of [' welding', 'welding ', ' welding ']) {
      const response = await post(validRecord({ name }))
      assert.equal(response.status, 400, JSON.stringify(name))
      assert.deepEqual(response.json.errors, [
        { accessPath: '$.name', message: 'must not have leading or trailing spaces' },
      ])
    }
  })

  it('spaces inside a string are accepted', async () => {
    assert.equal(
      (await post(validRecord({ recordUID: 'aaaaaaaa-0000-4000-8000-000000000002', name: 'Intro  to welding' })))
        .status,
      201,
    )
  })

  it('Errors 400: tabs, line breaks and non-ASCII whitespace are rejected anywhere in a value', async () => {
    for (const name of ['a\tb', 'a\nb', 'a\rb', 'a\u00a0b', 'a\u2003b', 'a\u3000b', 'ab\n']) {
      const response = await post(validRecord({ name }))
      assert.equal(response.status, 400, JSON.stringify(name))
      assert.equal(response.json.errors[0].accessPath, '$.name')
    }
  })

  it('string rules apply inside arrays and nested objects', async () => {
    const response = await post(
      validRecord({ locations: [{ deliveryLocationUID: 'aaaaaaaa-0000-4000-8000-000000000009', note: 'x\ty' }] }),
    )
    assert.equal(response.status, 400)
    assert.deepEqual(paths(response), ['$.locations[0].note'])
  })

  it('string-rule and schema failures are reported together', async () => {
    const response = await post({ ...validRecord(), name: ' padded', startDate: '2026-13-01' })
    assert.equal(response.status, 400)
    assert.deepEqual(paths(response), ['$.name', '$.startDate'])
  })

  it('enum values with leading or trailing spaces are trimmed and accepted', async () => {
    const response = await post(
      validRecord({ recordUID: 'aaaaaaaa-0000-4000-8000-000000000003', studentStatus: ' Deferred ' as 'Deferred' }),
    )
    assert.equal(response.status, 201)
    assert.equal(response.json.studentStatus, 'Deferred')
  })

  it('an enum value with a tab is still rejected', async () => {
    const response = await post(validRecord({ studentStatus: 'Deferred\t' as 'Deferred' }))
    assert.equal(response.status, 400)
  })

  it('Errors 400: dates must be real calendar dates in YYYY-MM-DD', async () => {
    for (const startDate of ['2026-02-29', '2026-2-3', '03/02/2026', '2026-02-03T00:00:00Z', '']) {
      const response = await post(validRecord({ startDate }))
      assert.equal(response.status, 400, startDate)
      assert.equal(response.json.errors[0].accessPath, '$.startDate')
    }
    assert.equal(
      (await post(validRecord({ recordUID: 'aaaaaaaa-0000-4000-8000-000000000004', startDate: '2028-02-29' }))).status,
      201,
    )
  })

  it('Errors 400: datetimes must be ISO 8601 in UTC', async () => {
    for (const changedAt of [
      '2026-01-01T10:00:00+10:00',
      '2026-01-01 10:00:00Z',
      '2026-01-32T00:00:00Z',
      '2026-01-01T24:00:00Z',
    ]) {
      const response = await post(validRecord({ changedAt }))
      assert.equal(response.status, 400, changedAt)
    }
    assert.equal(
      (
        await post(
          validRecord({ recordUID: 'aaaaaaaa-0000-4000-8000-000000000005', changedAt: '2026-01-01T10:00:00.123Z' }),
        )
      ).status,
      201,
    )
  })

  it('Errors 400: identifiers must be UUID version 4', async () => {
    const response = await post(validRecord({ recordUID: 'aaaaaaaa-0000-1000-8000-000000000006' }))
    assert.equal(response.status, 400)
    assert.equal(response.json.errors[0].message, 'must be a UUID version 4')
  })

  it('path parameters follow the same rules, with a path. access path', async () => {
    const response = await call(t.baseUrl, 'GET', '/probe/records/not-a-uuid', { token })
    assert.equal(response.status, 400)
    assert.deepEqual(response.json.errors, [{ accessPath: 'path.recordUID', message: 'must be a UUID version 4' }])
  })

  it('query parameters follow the string rules, with a query. access path', async () => {
    const response = await call(t.baseUrl, 'GET', '/probe/records?pageSize=%2010', { token })
    assert.equal(response.status, 400)
    assert.equal(response.json.errors[0].accessPath, 'query.pageSize')
  })

  it('a problem type name that is not one is 404, whatever it is called', async () => {
    for (const kind of ['constructor', '__proto__', 'toString', 'nope']) {
      assert.equal((await call(t.baseUrl, 'GET', `/problems/${kind}`)).status, 404, kind)
    }
  })

  it('Errors 400: a body nested deeper than any resource is refused, not walked', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000)
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: deep,
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 400)
  })

  it('Errors 400: a body that is not what its Content-Encoding says is an undecodable body', async () => {
    const response = await call(t.baseUrl, 'POST', '/probe/records', {
      token,
      body: JSON.stringify(validRecord()),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 400)
    assert.equal(response.json.type, '/problems/malformed-body')
  })

  it('Errors 500: an unexpected error is a problem without stack or internal detail', async () => {
    const response = await call(t.baseUrl, 'GET', '/probe/boom', { token })
    assert.equal(response.status, 500)
    assert.equal(response.json.type, '/problems/internal-error')
    assert.ok(!response.text.includes('internal detail'))
    assert.ok(!response.text.includes('.ts:'))
  })

  it('Errors 400: failures in the path, the query and the body come in one problem', async () => {
    const response = await call(t.baseUrl, 'PUT', '/vet-provider/v1/XX/transaction-batch/abc/student/not-a-uuid', {
      token,
      json: { studentUID: 'x', extra: 1 },
    })
    assert.equal(response.status, 400)
    const paths = response.json.errors.map((e: { accessPath: string }) => e.accessPath)
    for (const expected of ['path.jurisdiction', 'path.studentUID', '$.studentUID', '$.extra'])
      assert.ok(paths.includes(expected), `${expected} in ${paths}`)
  })
})
