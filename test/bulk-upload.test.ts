// The bulk upload (issue 19, an extension of the batch API): POST .../transaction-batch/{token}/records
// with NDJSON lines {"resourceType", "record"}. Stored as N single uploads in order would store them,
// in one transaction; refused whole, with every refused line listed, when any line breaks a rule of
// the single upload; the same limits, content types, batch rules and scope as single uploads.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import {
  call,
  loadExample,
  minimalUnitRecord,
  Reporter,
  startTestService,
  V1,
  type TestService,
  type Upload,
} from './support/index.ts'
import { resourceDefinitions } from '../src/modules/resources/index.ts'

const NDJSON = 'application/x-ndjson'
const MiB = 1024 * 1024

const typeOf = (segment: string) => resourceDefinitions.find((d) => d.segment === segment)!.resourceType
const uidFieldOf = (segment: string) => resourceDefinitions.find((d) => d.segment === segment)!.uidField
const line = (resourceType: string, record: unknown) => JSON.stringify({ resourceType, record })
const ndjson = (uploads: Upload[]) => uploads.map(({ segment, body }) => line(typeOf(segment), body)).join('\n')

/** A Student of the minimal unit record under another UID (and optionally other fields). */
const studentUid = (n: number) => `5d000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe('bulk upload (POST .../records, application/x-ndjson)', () => {
  let t: TestService
  let rto1: string
  let rto2: string
  let reporter: Reporter
  let student: Record<string, unknown>
  before(async () => {
    t = await startTestService()
    rto1 = await t.token('demo-rto-1')
    rto2 = await t.token('demo-rto-2')
    reporter = new Reporter(t.baseUrl, rto1)
    student = await loadExample('student')
  })
  after(() => t.close())

  const recordsPath = (batch: string, jurisdiction = 'NSW') =>
    `${V1}/${jurisdiction}/transaction-batch/${batch}/records`
  const post = (
    batch: string,
    body: string | Uint8Array,
    { token = rto1, type = NDJSON, headers = {} as Record<string, string>, jurisdiction = 'NSW' } = {},
  ) =>
    call(t.baseUrl, 'POST', recordsPath(batch, jurisdiction), {
      token,
      body: body as BodyInit,
      headers: { 'content-type': type, ...headers },
    })
  const count = async (batch: string, segment: string, token = rto1) => {
    const list = await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}/${segment}`, { token })
    assert.equal(list.status, 200, list.text)
    return list.json.numberOfResults as number
  }
  const totalRecords = async (batch: string) =>
    (await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}`, { token: rto1 })).json.totalRecords as number
  const students = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => line('Student', { ...student, studentUID: studentUid(from + i) }))

  it('a mixed NDJSON upload of every resource type is stored and readable through the normal GET endpoints', async () => {
    const batch = await reporter.newBatch()
    const uploads = await minimalUnitRecord()
    const response = await post(batch, `${ndjson(uploads)}\n`)
    assert.equal(response.status, 200, response.text)
    assert.equal(response.json.transactionBatchToken, batch)
    assert.equal(response.json.recordCount, uploads.length)
    assert.equal(response.json.created, uploads.length)
    assert.equal(response.json.replaced, 0)
    assert.deepEqual(response.json.byResourceType.SubjectEnrolment, { created: 2, replaced: 0 })
    assert.deepEqual(response.json.byResourceType.Student, { created: 1, replaced: 0 })
    assert.equal(Object.keys(response.json.byResourceType).length, 8)
    assert.equal(response.json.hasBlockingValidationFailures, false)
    for (const { segment, body } of uploads) {
      const uid = String(body[uidFieldOf(segment)])
      const read = await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}/${segment}/${uid}`, {
        token: rto1,
      })
      assert.equal(read.status, 200, `${segment} ${uid}`)
      assert.deepEqual(read.json, body, `${segment} stored as sent`)
    }
    assert.equal(await count(batch, 'subjectenrolment'), 2)
    assert.equal(await totalRecords(batch), uploads.length)
  })

  it('replace semantics: a later line with the same UID replaces an earlier one, and a record already in the batch counts as replaced', async () => {
    const batch = await reporter.newBatch()
    const already = { ...student, studentUID: studentUid(1), changeTrackingIdentifier: 'single v1' }
    assert.equal((await reporter.request('POST', reporter.batchPath(batch, '/student'), already)).status, 201)
    const body = [
      line('Student', { ...student, studentUID: studentUid(1), changeTrackingIdentifier: 'bulk v2' }),
      line('Student', { ...student, studentUID: studentUid(2), changeTrackingIdentifier: 'first' }),
      // The same UID in upper case is the same record (UIDs compare as UUIDs).
      line('Student', { ...student, studentUID: studentUid(2).toUpperCase(), changeTrackingIdentifier: 'second' }),
      line('Student', { ...student, studentUID: studentUid(3) }),
    ].join('\n')
    const response = await post(batch, body)
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(
      {
        created: response.json.created,
        replaced: response.json.replaced,
        student: response.json.byResourceType.Student,
      },
      { created: 2, replaced: 2, student: { created: 2, replaced: 2 } },
    )
    assert.equal(await count(batch, 'student'), 3)
    const read = async (uid: string) =>
      (await reporter.request('GET', reporter.batchPath(batch, `/student/${uid}`))).json.changeTrackingIdentifier
    assert.equal(await read(studentUid(1)), 'bulk v2')
    assert.equal(await read(studentUid(2)), 'second')
  })

  it('one refused line: 400 naming its line number, resourceType, UID and field path, and nothing of the request is stored', async () => {
    const batch = await reporter.newBatch()
    const bad = { ...student, studentUID: studentUid(11), familyName: ' Citizen' }
    const body = [students(10, 1)[0], '', line('Student', bad), students(12, 1)[0]].join('\n')
    const response = await post(batch, body)
    assert.equal(response.status, 400, response.text)
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.equal(response.json.type, '/problems/structural-validation')
    assert.equal(response.json.lineCount, 3)
    assert.equal(response.json.refusedLineCount, 1)
    assert.deepEqual(response.json.lines, [
      {
        line: 3, // the empty line 2 is skipped but counted
        resourceType: 'Student',
        resourceUID: studentUid(11),
        errors: [{ accessPath: '$.record.familyName', message: 'must not have leading or trailing spaces' }],
      },
    ])
    assert.match(response.json.detail, /1 of 3 lines refused; nothing was stored/)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('a refused line after records were already written (line 1,201 of 1,500) stores nothing: the transaction rolls back', async () => {
    const batch = await reporter.newBatch()
    const lines = students(600, 1_500)
    lines[1_200] = line('Student', { ...student, studentUID: studentUid(5_000), dateOfBirth: '2001-02-30' })
    const response = await post(batch, gzipSync(Buffer.from(lines.join('\n'))), {
      headers: { 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 400, response.text)
    assert.deepEqual(
      response.json.lines.map((l: { line: number; errors: { accessPath: string }[] }) => [
        l.line,
        l.errors[0]!.accessPath,
      ]),
      [[1_201, '$.record.dateOfBirth']],
    )
    assert.equal(await count(batch, 'student'), 0)
  })

  it('a refused line is answered 400 before the batch is looked at, as a single upload is: even in a batch that is not there', async () => {
    const bad = line('Student', { ...student, gender: 'Neither' })
    const single = await reporter.request('POST', reporter.batchPath('no-such-batch', '/student'), {
      ...student,
      gender: 'Neither',
    })
    assert.equal(single.status, 400)
    const response = await post('no-such-batch', gzipSync(Buffer.from([...students(700, 1_200), bad].join('\n'))), {
      headers: { 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 400, response.text)
    assert.equal(response.json.lines[0].line, 1_201)
  })

  it('each record meets exactly the structural rules of its single upload: the same failures at the same paths under $.record', async () => {
    const batch = await reporter.newBatch()
    const enrolment = await loadExample('subjectenrolment')
    const { studentUID: _uid, ...withoutUid } = student
    const cases: Upload[] = [
      { segment: 'student', body: withoutUid },
      { segment: 'student', body: { ...student, studentUID: studentUid(20).replace(/^(.{14})4/, '$11') } },
      { segment: 'student', body: { ...student, favouriteColour: 'blue' } },
      { segment: 'student', body: { ...student, changeTrackingIdentifier: 'v\t3' } },
      { segment: 'student', body: { ...student, isVoided: true } },
      { segment: 'student', body: { ...student, isVoided: 'true' } },
      { segment: 'student', body: { ...student, dateOfBirth: '2001-02-30' } },
      { segment: 'subjectenrolment', body: { ...enrolment, locations: [] } },
      { segment: 'subjectenrolment', body: { ...enrolment, lifecycle: [{ studentStatus: 'Unknown' }] } },
    ]
    const single: unknown[] = []
    for (const { segment, body } of cases) {
      const response = await reporter.request('POST', reporter.batchPath(batch, `/${segment}`), body)
      assert.equal(response.status, 400, `${segment} ${JSON.stringify(body).slice(0, 80)}`)
      single.push(
        response.json.errors.map((e: { accessPath: string; message: string }) => ({
          ...e,
          accessPath: e.accessPath.replace(/^\$/, '$.record'),
        })),
      )
    }
    const response = await post(batch, ndjson(cases))
    assert.equal(response.status, 400, response.text)
    assert.equal(response.json.refusedLineCount, cases.length)
    assert.deepEqual(
      response.json.lines.map((refused: { errors: unknown }) => refused.errors),
      single,
    )
    assert.deepEqual(
      response.json.lines.map((refused: { line: number }) => refused.line),
      cases.map((_, i) => i + 1),
    )
  })

  it('null on an optional field and spaces around an enum value are taken as the single upload takes them', async () => {
    const batch = await reporter.newBatch()
    const loose = { ...student, studentUID: studentUid(30), clientTitle: null, gender: ` ${student.gender} ` }
    assert.equal((await post(batch, line('Student', loose))).status, 200)
    const viaSingle = { ...loose, studentUID: studentUid(31) }
    assert.equal((await reporter.request('POST', reporter.batchPath(batch, '/student'), viaSingle)).status, 201)
    const read = async (uid: string) => {
      const { studentUID: _uid, ...rest } = (
        await reporter.request('GET', reporter.batchPath(batch, `/student/${uid}`))
      ).json
      return rest
    }
    const bulk = await read(studentUid(30))
    assert.equal(bulk.gender, student.gender)
    assert.equal('clientTitle' in bulk, false)
    assert.deepEqual(bulk, await read(studentUid(31)))
  })

  it('lines that are not records are refused with the line at fault: not JSON, not an object, an unknown resourceType, no record, an extra property', async () => {
    const batch = await reporter.newBatch()
    const body = [
      '{"resourceType": "Student", "record": ',
      '[1, 2]',
      line('student', student),
      JSON.stringify({ resourceType: 'Student' }),
      JSON.stringify({ resourceType: 'Student', record: student, note: 'x' }),
      students(40, 1)[0],
    ].join('\r\n')
    const response = await post(batch, body)
    assert.equal(response.status, 400, response.text)
    const byLine = Object.fromEntries(
      response.json.lines.map((l: { line: number; errors: { accessPath: string }[] }) => [
        l.line,
        l.errors.map((e) => e.accessPath),
      ]),
    )
    assert.deepEqual(byLine, {
      1: ['$'],
      2: ['$'],
      3: ['$.resourceType'],
      4: ['$.record'],
      5: ['$.note'],
    })
    assert.match(response.json.lines[0].errors[0].message, /is not valid JSON/)
    assert.match(response.json.lines[2].errors[0].message, /must be one of: Student, DeliveryLocation/)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('the problem lists the first 100 refused lines and counts them all', async () => {
    const batch = await reporter.newBatch()
    const lines = Array.from({ length: 150 }, (_, i) =>
      line('Student', { ...student, studentUID: studentUid(100 + i), gender: 'Neither' }),
    )
    const response = await post(batch, [...students(99, 1), ...lines].join('\n'))
    assert.equal(response.status, 400)
    assert.equal(response.json.lineCount, 151)
    assert.equal(response.json.refusedLineCount, 150)
    assert.equal(response.json.lines.length, 100)
    assert.equal(response.json.lines[0].line, 2)
    assert.equal(response.json.lines[99].line, 101)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('more lines than LIMIT_BULK_RECORDS (10,000) is 413 too-many-records, and nothing is stored', async () => {
    const batch = await reporter.newBatch()
    const body = gzipSync(Buffer.from([...students(0, 10), ...Array.from({ length: 9_991 }, () => '{}')].join('\n')))
    const response = await post(batch, body, { headers: { 'content-encoding': 'gzip' } })
    assert.equal(response.status, 413, response.text)
    assert.equal(response.json.type, '/problems/too-many-records')
    assert.match(response.json.detail, /at most 10000 records/)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('a body above the wire limit is 413 without a body, above the decompressed limit 413 BRTS90400; nothing is stored', async () => {
    const batch = await reporter.newBatch()
    const perLine = Buffer.byteLength(students(0, 1)[0]!) + 1
    const wire = students(0, Math.ceil((1.1 * MiB) / perLine)).join('\n')
    const overWire = await post(batch, wire)
    assert.equal(overWire.status, 413)
    assert.equal(overWire.text, '')
    const decoded = students(0, Math.ceil((10.5 * MiB) / perLine)).join('\n')
    const compressed = gzipSync(Buffer.from(decoded))
    assert.ok(compressed.length < MiB, `compressed ${compressed.length} bytes`)
    const overDecoded = await post(batch, compressed, { headers: { 'content-encoding': 'gzip' } })
    assert.equal(overDecoded.status, 413, overDecoded.text)
    assert.equal(overDecoded.json.errorNumber, 'BRTS90400')
    assert.equal(await count(batch, 'student'), 0)
  })

  it('a gzip-compressed NDJSON body is accepted like any compressed request', async () => {
    const batch = await reporter.newBatch()
    const response = await post(batch, gzipSync(Buffer.from(students(200, 500).join('\n'))), {
      headers: { 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 200, response.text)
    assert.equal(response.json.created, 500)
    assert.equal(await count(batch, 'student'), 500)
  })

  it('a request larger than one statement (2,500 records, written 1,000 at a time) is stored whole, in one transaction', async () => {
    const batch = await reporter.newBatch()
    const body = [...students(1000, 2_500), students(1000, 1)[0]].join('\n')
    const response = await post(batch, gzipSync(Buffer.from(body)), { headers: { 'content-encoding': 'gzip' } })
    assert.equal(response.status, 200, response.text)
    assert.deepEqual([response.json.created, response.json.replaced], [2_500, 1])
    assert.equal(await count(batch, 'student'), 2_500)
  })

  it('a wrong content type is 415: JSON to the bulk route, NDJSON to a single upload, and nothing is stored', async () => {
    const batch = await reporter.newBatch()
    const asJson = await post(batch, JSON.stringify({ resourceType: 'Student', record: student }), {
      type: 'application/json',
    })
    assert.equal(asJson.status, 415, asJson.text)
    assert.equal(asJson.json.type, '/problems/unsupported-media-type')
    assert.match(asJson.json.detail, /application\/x-ndjson/)
    const asText = await post(batch, students(0, 1)[0]!, { type: 'text/plain' })
    assert.equal(asText.status, 415)
    const ndjsonToSingle = await call(t.baseUrl, 'POST', reporter.batchPath(batch, '/student'), {
      token: rto1,
      body: JSON.stringify(student),
      headers: { 'content-type': NDJSON },
    })
    assert.equal(ndjsonToSingle.status, 415)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('an empty body is 400 and stores nothing', async () => {
    const batch = await reporter.newBatch()
    const response = await post(batch, '\n\n')
    assert.equal(response.status, 400, response.text)
    assert.deepEqual(
      response.json.errors.map((e: { accessPath: string }) => e.accessPath),
      ['$'],
    )
  })

  it('a submitted batch is 409 batch-submitted, like a single upload, and nothing changes in it', async () => {
    const batch = await reporter.submitted(await minimalUnitRecord())
    const single = await reporter.request('POST', reporter.batchPath(batch, '/student'), student)
    assert.equal(single.status, 409)
    const response = await post(batch, gzipSync(Buffer.from(students(300, 1_200).join('\n'))), {
      headers: { 'content-encoding': 'gzip' },
    })
    assert.equal(response.status, 409, response.text)
    assert.equal(response.json.reason, 'batch-submitted')
    assert.equal(await count(batch, 'student'), 1)
  })

  it("another RTO's batch, or the batch under another jurisdiction, is 404 like a single upload, and nothing is stored", async () => {
    const batch = await reporter.newBatch()
    const single = await call(t.baseUrl, 'POST', reporter.batchPath(batch, '/student'), { token: rto2, json: student })
    assert.equal(single.status, 404)
    const otherRto = await post(batch, students(400, 2).join('\n'), { token: rto2 })
    assert.equal(otherRto.status, 404, otherRto.text)
    assert.equal(otherRto.json.type, '/problems/not-found')
    const otherJurisdiction = await post(batch, students(400, 2).join('\n'), { jurisdiction: 'VIC' })
    assert.equal(otherJurisdiction.status, 404)
    assert.equal(await count(batch, 'student'), 0)
    const unknown = await post('no-such-batch', students(400, 1).join('\n'))
    assert.equal(unknown.status, 404)
  })

  it('the scope vet:report is required: no token 401, a token without the scope 403, before the body is read', async () => {
    const batch = await reporter.newBatch()
    const anonymous = await call(t.baseUrl, 'POST', recordsPath(batch), {
      body: students(500, 1)[0]!,
      headers: { 'content-type': NDJSON },
    })
    assert.equal(anonymous.status, 401)
    const { addClient } = await import('../src/platform/auth/clients.service.ts')
    const { secret } = await addClient(t.service.database.db, {
      clientId: 'bulk-reader',
      rto: '90002',
      scopes: ['vet:read'],
    })
    const reader = await t.token('bulk-reader', secret)
    const forbidden = await post(batch, students(500, 1).join('\n'), { token: reader })
    assert.equal(forbidden.status, 403, forbidden.text)
    assert.equal(await count(batch, 'student'), 0)
  })

  it('the OpenAPI document describes the route as an extension taking NDJSON lines', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as any
    const operation =
      document.paths['/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/records'].post
    assert.match(operation.description, /not part of the specification/)
    assert.deepEqual(Object.keys(operation.requestBody.content), [NDJSON])
    assert.equal(operation.requestBody.content[NDJSON].schema.$ref, '#/components/schemas/BulkUploadLine')
    assert.equal(
      operation.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/BulkUploadResult',
    )
    assert.deepEqual(operation.security, [{ oauth2: ['vet:report'] }])
    assert.equal(operation['x-maxRecords'], 10_000, 'the line limit in force, for clients sizing their requests')
  })
})
