// Hardening of input (issue 16): text that is not Unicode text, bytes that are not UTF-8, numbers a
// double cannot hold, bodies an operation does not take, router errors, unbounded arrays and stalled
// requests. Every refusal is a 4xx problem with the access path, and nothing is stored.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import {
  allOf,
  call,
  declarationBody,
  Reporter,
  segmentOf,
  startTestService,
  V1,
  world,
  type TestService,
  type World,
} from './support/index.ts'

type Body = Record<string, any>

describe('input hardening', () => {
  let t: TestService
  let rto: Reporter
  let batch: string
  before(async () => {
    t = await startTestService()
    rto = new Reporter(t.baseUrl, await t.token())
    batch = await rto.newBatch()
  })
  after(() => t.close())

  const counts = async (): Promise<Record<string, number>> =>
    (await rto.request('GET', rto.batchPath(batch))).json.recordCounts
  const upload = (segment: string, body: unknown, headers: Record<string, string> = {}) =>
    call(t.baseUrl, 'POST', rto.batchPath(batch, `/${segment}`), { token: rto.token, json: body, headers })
  const uploadRaw = (segment: string, bytes: Buffer, headers: Record<string, string> = {}) =>
    call(t.baseUrl, 'POST', rto.batchPath(batch, `/${segment}`), {
      token: rto.token,
      body: new Uint8Array(bytes),
      headers: { 'content-type': 'application/json', ...headers },
    })

  function assertProblem(
    response: { status: number; headers: Headers; json: any },
    status: number,
    type: string,
  ): void {
    assert.equal(response.status, status, JSON.stringify(response.json))
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(response.json.type, type)
    assert.ok(response.json.traceId, 'a traceId')
  }

  // One string field, top-level and nested, of each of the eight record types.
  const places: [keyof World, (w: World, bad: string) => Body, string][] = [
    ['student', (w, bad) => ({ ...w.student, familyName: bad }), '$.familyName'],
    [
      'student',
      (w, bad) => ({ ...w.student, permanentAddress: { ...w.student.permanentAddress, suburbLocalityOrTown: bad } }),
      '$.permanentAddress.suburbLocalityOrTown',
    ],
    ['location', (w, bad) => ({ ...w.location, deliveryLocationName: bad }), '$.deliveryLocationName'],
    ['subject', (w, bad) => ({ ...w.subject, subjectName: bad }), '$.subjectName'],
    [
      'subjectOffering',
      (w, bad) => ({ ...w.subjectOffering, changeTrackingIdentifier: bad }),
      '$.changeTrackingIdentifier',
    ],
    [
      'subjectEnrolment',
      (w, bad) => ({
        ...w.subjectEnrolment,
        locations: [{ ...w.subjectEnrolment.locations[0], deliveryLocationUID: bad }],
      }),
      '$.locations[0].deliveryLocationUID',
    ],
    ['program', (w, bad) => ({ ...w.program, programName: bad }), '$.programName'],
    [
      'programOffering',
      (w, bad) => ({ ...w.programOffering, changeTrackingIdentifier: bad }),
      '$.changeTrackingIdentifier',
    ],
    [
      'programEnrolment',
      (w, bad) => ({
        ...w.programEnrolment,
        lifecycle: [{ ...w.programEnrolment.lifecycle[0], studentActivityDate: bad }],
      }),
      '$.lifecycle[0].studentActivityDate',
    ],
  ]

  for (const [label, bad, message] of [
    ['a NUL', 'Smith\u0000', /control characters \(U\+0000 at character 6\)/],
    ['a lone UTF-16 surrogate', 'Smith\ud800', /lone UTF-16 surrogate \(U\+D800 at character 6\)/],
    ['a lone low surrogate', '\udc00Smith', /lone UTF-16 surrogate/],
    ['another control character', 'Sm\u0007ith', /control characters \(U\+0007/],
    ['a bidirectional override', 'Smith\u202eevil', /bidirectional .* \(U\+202E/],
    ['a noncharacter', 'Smith\uffff', /noncharacters \(U\+FFFF/],
  ] as const) {
    it(`Errors 400: ${label} in any string of any record type is a structural problem naming the access path, and nothing is stored`, async () => {
      const w = await world()
      const before = await counts()
      for (const [name, build, path] of places) {
        const response = await upload(segmentOf(name), build(w, bad))
        assertProblem(response, 400, '/problems/structural-validation')
        const failure = response.json.errors.find((e: any) => e.accessPath === path)
        assert.ok(failure, `${name}: ${JSON.stringify(response.json.errors)}`)
        assert.match(failure.message, message)
      }
      assert.deepEqual(await counts(), before)
    })
  }

  it('Errors 400: a NUL in a property name is refused with its path', async () => {
    const w = await world()
    const response = await upload('student', { ...w.student, 'a\u0000b': 1 })
    assertProblem(response, 400, '/problems/structural-validation')
    assert.ok(
      response.json.errors.some(
        (e: any) => e.accessPath === "$['a\\u0000b']" && /property name must not contain control/.test(e.message),
      ),
      JSON.stringify(response.json.errors),
    )
  })

  it('private-use characters and right-to-left text are kept as sent', async () => {
    const w = await world()
    const name = `\u05db\u05d4\u05df\ue000${w.student.familyName}`.slice(0, 40)
    const response = await upload('student', { ...w.student, familyName: name })
    assert.equal(response.status, 201, response.text)
  })

  it('Errors 400: a NUL or lone surrogate in a declaration is refused and no declaration is saved', async () => {
    for (const RTOUserName of ['Alex\u0000Citizen', 'Alex\ud800']) {
      const response = await rto.request('POST', `${V1}/declaration`, declarationBody({ RTOUserName }))
      assertProblem(response, 400, '/problems/structural-validation')
      assert.deepEqual(
        response.json.errors.map((e: any) => e.accessPath),
        ['$.RTOUserName'],
      )
    }
  })

  it('Errors 400: a NUL in client_id at the token endpoint is a problem, not a 500 (form body and Basic header)', async () => {
    const form = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: 'grant_type=client_credentials&client_id=demo%00&client_secret=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assertProblem(form, 400, '/problems/structural-validation')
    assert.deepEqual(
      form.json.errors.map((e: any) => e.accessPath),
      ['$.client_id'],
    )
    const basic = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('demo%00:x').toString('base64')}`,
      },
    })
    assertProblem(basic, 401, '/problems/invalid-client')
    const overlong = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: `grant_type=client_credentials&client_id=${'a'.repeat(129)}&client_secret=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    assertProblem(overlong, 400, '/problems/structural-validation')
  })

  it('Errors 400: invalid percent-encoding or invalid UTF-8 in a form body is refused', async () => {
    for (const body of [
      'grant_type=client_credentials&client_id=%FF&client_secret=x',
      'grant_type=client_credentials&client_id=%E0%80&client_secret=x',
    ]) {
      const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      assertProblem(response, 400, '/problems/malformed-body')
    }
  })

  it('Errors 400: %00 in a path parameter is a structural problem', async () => {
    const response = await rto.request('GET', rto.batchPath(`${batch}%00`))
    assertProblem(response, 400, '/problems/structural-validation')
    assert.deepEqual(
      response.json.errors.map((e: any) => e.accessPath),
      ['path.transactionBatchToken'],
    )
  })

  for (const [label, bytes] of [
    ['an overlong encoding (C0 80)', [0xc0, 0x80]],
    ['an encoded surrogate (CESU, ED A0 80)', [0xed, 0xa0, 0x80]],
    ['a byte that never occurs in UTF-8 (FF)', [0xff]],
    ['a truncated sequence (E2 82)', [0xe2, 0x82]],
  ] as const) {
    it(`Errors 400: raw invalid UTF-8 in a body, ${label}, is refused and nothing is stored`, async () => {
      const w = await world()
      const json = JSON.stringify({ ...w.student, familyName: 'NAME' })
      const [head, tail] = json.split('NAME') as [string, string]
      const before = await counts()
      const response = await uploadRaw(
        'student',
        Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]),
      )
      assertProblem(response, 400, '/problems/malformed-body')
      assert.deepEqual(await counts(), before)
    })
  }

  it('Errors 400: invalid UTF-8 inside a gzip body is refused too', async () => {
    const w = await world()
    const json = JSON.stringify({ ...w.student, familyName: 'NAME' }).split('NAME') as [string, string]
    const response = await uploadRaw(
      'student',
      gzipSync(Buffer.concat([Buffer.from(json[0]), Buffer.from([0xc0, 0x80]), Buffer.from(json[1])])),
      { 'content-encoding': 'gzip' },
    )
    assertProblem(response, 400, '/problems/malformed-body')
  })

  it('Errors 415: a charset other than UTF-8 is unsupported; utf-8 in any case is accepted', async () => {
    const w = await world()
    const latin = await upload('student', w.student, { 'content-type': 'application/json; charset=iso-8859-1' })
    assertProblem(latin, 415, '/problems/unsupported-media-type')
    const utf8 = await upload('student', w.student, { 'content-type': 'application/json; charset="UTF-8"' })
    assert.equal(utf8.status, 201, utf8.text)
  })

  it('Errors 415: Content-Type text/plain is unsupported, as docs/decisions.md says', async () => {
    const w = await world()
    const response = await call(t.baseUrl, 'POST', rto.batchPath(batch, '/student'), {
      token: rto.token,
      body: JSON.stringify(w.student),
      headers: { 'content-type': 'text/plain' },
    })
    assertProblem(response, 415, '/problems/unsupported-media-type')
  })

  it("Errors 400: invalid percent-encoding in the path is a problem, not the router's own JSON", async () => {
    const response = await rto.request('GET', `${V1}/student/%FF`)
    assertProblem(response, 400, '/problems/structural-validation')
    assert.equal(response.json.instance, undefined, 'the bad path is not echoed back')
  })

  it('Errors 400: an overlong path parameter is a problem that does not echo the path', async () => {
    const long = 'a'.repeat(5000)
    const response = await rto.request('GET', rto.batchPath(long))
    assertProblem(response, 400, '/problems/structural-validation')
    assert.ok(!response.text.includes(long.slice(0, 300)), 'the path is not in the body')
  })

  it('unknown routes and methods are problems with a traceId', async () => {
    for (const method of ['GET', 'PATCH', 'PROPFIND']) {
      const response = await call(t.baseUrl, method, '/vet-provider/v1/no-such-thing', { token: rto.token })
      assertProblem(response, 404, '/problems/not-found')
    }
  })

  it('Errors 400: batch creation takes no body or {}; null, whitespace, a BOM, an array or a property are refused and no batch is made', async () => {
    const list = async () => (await rto.request('GET', `${V1}/NSW/transaction-batch?pageSize=100`)).json.numberOfResults
    const before = await list()
    const create = (body: string | Buffer) =>
      call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, {
        token: rto.token,
        body: typeof body === 'string' ? body : new Uint8Array(body),
        headers: { 'content-type': 'application/json' },
      })
    for (const body of ['null', ' ', '[]', '{"a":1}', '"x"'])
      assertProblem(
        await create(body),
        400,
        body === ' ' ? '/problems/malformed-json' : '/problems/structural-validation',
      )
    assertProblem(await create(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), 400, '/problems/malformed-json')
    assert.equal(await list(), before)
    assert.equal((await create('')).status, 201)
    assert.equal((await create('{}')).status, 201)
  })

  it('Errors 400: POST validate takes no body; [], 123 and {"a":1} are refused and no run is queued', async () => {
    for (const body of ['[]', '123', '{"a":1}']) {
      const response = await call(t.baseUrl, 'POST', rto.batchPath(batch, '/validate'), {
        token: rto.token,
        body,
        headers: { 'content-type': 'application/json' },
      })
      assertProblem(response, 400, '/problems/structural-validation')
    }
    const status = await rto.request('GET', rto.batchPath(batch, '/validate'))
    assert.equal(status.status, 404, 'no validation run was requested')
  })

  it('Errors 400: a number a double cannot hold (1e-400, 1e400) is refused with its path', async () => {
    const w = await world()
    for (const number of ['1e-400', '1e400', '-2E+999']) {
      const text = JSON.stringify({ ...w.subject, nominalHours: 12345 }).replace('12345', number)
      const response = await uploadRaw('subject', Buffer.from(text))
      assertProblem(response, 400, '/problems/structural-validation')
      assert.deepEqual(
        response.json.errors.map((e: any) => e.accessPath),
        ['$.nominalHours'],
      )
      assert.match(response.json.errors[0].message, /outside the range/)
    }
    const fine = JSON.stringify({ ...w.subject, nominalHours: 12345 }).replace('12345', '1.2e2')
    assert.equal((await uploadRaw('subject', Buffer.from(fine))).status, 201)
  })

  it('Limits: an array of 100,000 locations (under the wire limit gzipped) is refused by its bound, and nothing is stored', async () => {
    const w = await world()
    const before = await counts()
    const locations = Array.from({ length: 100_000 }, () => w.subjectEnrolment.locations[0])
    const body = gzipSync(JSON.stringify({ ...w.subjectEnrolment, locations }))
    assert.ok(body.length < 1024 * 1024)
    const response = await uploadRaw('subjectenrolment', body, { 'content-encoding': 'gzip' })
    assertProblem(response, 400, '/problems/structural-validation')
    assert.ok(
      response.json.errors.some(
        (e: any) => e.accessPath === '$.locations' && /must NOT have more than 50 items/.test(e.message),
      ),
      JSON.stringify(response.json.errors.slice(0, 3)),
    )
    assert.deepEqual(await counts(), before)
  })

  it('Limits: 100,000 prior educational achievements are refused by the bound', async () => {
    const w = await world()
    const items = Array.from({ length: 100_000 }, () => ({
      priorEducationalAchievement: 'Certificate_I',
      recognition: 'Australian',
    }))
    const response = await uploadRaw(
      'student',
      gzipSync(
        JSON.stringify({ ...w.student, hasPriorEducationalAchievement: true, priorEducationalAchievements: items }),
      ),
      { 'content-encoding': 'gzip' },
    )
    assertProblem(response, 400, '/problems/structural-validation')
    assert.ok(response.json.errors.some((e: any) => e.accessPath === '$.priorEducationalAchievements'))
  })

  it('the same delivery location twice in one subject enrolment is refused, even with different hours', async () => {
    const w = await world()
    const location = w.subjectEnrolment.locations[0]
    const response = await upload('subjectenrolment', {
      ...w.subjectEnrolment,
      locations: [
        { ...location, hoursAtLocation: 5 },
        { ...location, hoursAtLocation: 7 },
      ],
    })
    assertProblem(response, 400, '/problems/structural-validation')
    assert.deepEqual(response.json.errors, [
      { accessPath: '$.locations', message: 'must not list the same deliveryLocationUID twice (items 0 and 1)' },
    ])
  })

  it('the same lifecycle state twice is refused', async () => {
    const w = await world()
    const state = w.subjectEnrolment.lifecycle[0]
    const response = await upload('subjectenrolment', { ...w.subjectEnrolment, lifecycle: [state, state] })
    assertProblem(response, 400, '/problems/structural-validation')
    assert.ok(response.json.errors.some((e: any) => e.accessPath === '$.lifecycle'))
  })

  it('a valid world is still accepted after all of the above (the baseline)', async () => {
    const w = await world()
    for (const { segment, body } of allOf(w)) {
      const response = await upload(segment, body)
      assert.ok(response.status === 201 || response.status === 200, `${segment}: ${response.text}`)
    }
  })
})

describe('stalled requests', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ env: { HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '2' } })
  })
  after(() => t.close())

  // Writes the given text, then waits (bounded) for the server to answer and close.
  function stall(text: string): Promise<string> {
    const { port } = new URL(t.baseUrl)
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text))
      let received = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk) => {
        received += chunk
      })
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
      setTimeout(() => {
        socket.destroy()
        reject(new Error(`no answer within 10 s; got ${JSON.stringify(received)}`))
      }, 10_000).unref()
    })
  }

  it('a body shorter than its Content-Length gets 408 problem details and the connection is closed', async () => {
    const answer = await stall(
      `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=`,
    )
    assert.match(answer, /^HTTP\/1\.1 408 /)
    assert.match(answer, /application\/problem\+json/)
    assert.match(answer, /"type":"\/problems\/request-timeout"/)
  })

  it('a chunked body without its last chunk gets 408 and the connection is closed', async () => {
    const answer = await stall(
      `POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n5\r\ngrant\r\n`,
    )
    assert.match(answer, /^HTTP\/1\.1 408 /)
  })

  it('headers that never end get 408', async () => {
    const answer = await stall(`GET /health/live HTTP/1.1\r\nHost: x\r\n`)
    assert.match(answer, /^HTTP\/1\.1 408 /)
  })
})
