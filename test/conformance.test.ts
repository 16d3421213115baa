// Conformance corrections (issue 17): null on optional fields, identifiers the service mints, first-time
// enrolments and the documented limits, each through HTTP against a real service.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { allOf, Reporter, segmentOf, startTestService, uidOf, V1, world, type TestService } from './support/index.ts'

// RFC 9562: a version digit 1 to 8 and the variant bits 10 (8, 9, a or b).
const RFC_9562_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('conformance corrections', () => {
  let t: TestService
  let rto: Reporter
  before(async () => {
    t = await startTestService()
    rto = new Reporter(t.baseUrl, await t.token())
  })
  after(() => t.close())

  it('Resources: null on an optional field is accepted as the field left out (No_value "has the same outcome as null"), and is not stored', async () => {
    const w = await world()
    const batch = await rto.newBatch()
    const student = {
      ...w.student,
      clientTitle: null,
      gender: null,
      permanentAddress: { ...w.student.permanentAddress, flatUnitDetails: null },
      changeTrackingIdentifier: null,
    }
    const uploaded = await rto.request('POST', rto.batchPath(batch, '/student'), student)
    assert.equal(uploaded.status, 201, uploaded.text)
    const stored = await rto.request('GET', rto.batchPath(batch, `/student/${w.student.studentUID}`))
    assert.equal(stored.status, 200, stored.text)
    const body = stored.json.resource ?? stored.json
    for (const field of ['clientTitle', 'gender', 'changeTrackingIdentifier'])
      assert.ok(!(field in body), `${field} is absent, not null: ${JSON.stringify(body)}`)
    assert.ok(!('flatUnitDetails' in body.permanentAddress))
  })

  it('Resources: an explicit null on a required field is still a structural problem', async () => {
    const w = await world()
    const batch = await rto.newBatch()
    const response = await rto.request('POST', rto.batchPath(batch, '/student'), { ...w.student, familyName: null })
    assert.equal(response.status, 400)
    assert.deepEqual(
      response.json.errors.map((e: any) => e.accessPath),
      ['$.familyName'],
    )
  })

  it('Resources: null voidedReason with isVoided true is "required", not accepted', async () => {
    const w = await world()
    const batch = await rto.newBatch()
    const response = await rto.request('POST', rto.batchPath(batch, '/subject'), {
      ...w.subject,
      isVoided: true,
      voidedReason: null,
    })
    assert.equal(response.status, 400)
    assert.deepEqual(
      response.json.errors.map((e: any) => e.accessPath),
      ['$.voidedReason'],
    )
  })

  it('Declaration: null on an optional field is accepted as absent (jurisdiction and period come from the path)', async () => {
    const response = await rto.request('POST', `${V1}/reporting-period/NSW/202601/declaration`, {
      reportingPeriodNumber: null,
      jurisdiction: null,
      declarationType: 'Declaration',
      RTOAcceptanceOfDeclaration: true,
      RTOUserName: 'Alex Citizen',
      RTOUserEmailAddress: 'alex@example.edu.au',
    })
    assert.ok(
      response.status === 200 || response.status === 201 || response.status === 409,
      `not a structural refusal: ${response.status} ${response.text}`,
    )
    assert.notEqual(response.json?.type, '/problems/structural-validation')
  })

  it('OpenAPI: optional upload fields are described as accepting null; required ones are not', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as any
    const operation =
      document.paths['/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/student'].post
    let schema = operation.requestBody.content['application/json'].schema
    if (schema.$ref)
      schema = schema.$ref
        .split('/')
        .slice(1)
        .reduce((node: any, key: string) => node[key], document)
    assert.deepEqual(schema.properties.clientTitle.type, ['string', 'null'])
    assert.ok(schema.properties.gender.enum.includes(null))
    assert.equal(schema.properties.familyName.type, 'string')
  })

  it('Validation result: validationGroupingId is a valid RFC 9562 UUID', async () => {
    const w = await world()
    const batch = await rto.batchWith([
      { segment: 'student', body: { ...w.student, surveyAvailability: 'Available', emailAddressPrimary: undefined } },
      { segment: segmentOf('subjectEnrolment'), body: w.subjectEnrolment },
    ])
    const { results } = await rto.validate(batch)
    assert.ok(results.length > 1, 'several results to check')
    for (const result of results) assert.match(result.validationGroupingId, RFC_9562_UUID)
  })

  it('Enrolment lifecycle: a first-time enrolment whose history starts at Commenced (the minimal unit record) validates with no result, and one starting Registered too', async () => {
    const w = await world()
    const { results } = await rto.validate(await rto.batchWith(allOf(w)))
    assert.deepEqual(results, [])
    const registered = {
      ...w.subjectEnrolment,
      subjectEnrolmentUID: crypto.randomUUID(),
      lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2026-10-01' }],
    }
    const second = await rto.validate(
      await rto.batchWith([...allOf(w), { segment: 'subjectenrolment', body: registered }]),
    )
    assert.deepEqual(
      second.results.filter((r) => r.resourceUID === uidOf(registered)),
      [],
    )
  })

  it('Limits: changeTrackingIdentifier takes up to 255 characters of any text, and not 256', async () => {
    const w = await world()
    const batch = await rto.newBatch()
    const longest = `sms:v2/${'x'.repeat(248)}`
    assert.equal(longest.length, 255)
    const accepted = await rto.request('POST', rto.batchPath(batch, '/subject'), {
      ...w.subject,
      changeTrackingIdentifier: longest,
    })
    assert.equal(accepted.status, 201, accepted.text)
    assert.equal(accepted.json.changeTrackingIdentifier, longest)
    const refused = await rto.request('POST', rto.batchPath(batch, '/subject'), {
      ...w.subject,
      changeTrackingIdentifier: `${longest}y`,
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      refused.json.errors.map((e: any) => e.accessPath),
      ['$.changeTrackingIdentifier'],
    )
  })
})
