// The held records export (GET /vet-provider/v1/held-records, an extension of the API, issue 19): the
// latest submitted version of each held, not voided, record of the caller's RTO, with its content,
// paged along a UID cursor; never another RTO's record. And the SDK's heldRecords and heldDataset.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { addClient } from '../src/platform/auth/clients.service.ts'
import { Scopes } from '../src/platform/auth/scopes.ts'
import { Vetrs } from '../packages/client/src/index.ts'
import {
  allOf,
  call,
  newRto,
  startTestService,
  uidOf,
  V1,
  voided,
  world,
  type Rto,
  type TestService,
  type World,
} from './support/index.ts'

const TYPES = {
  student: 'Student',
  location: 'DeliveryLocation',
  subject: 'Subject',
  subjectOffering: 'SubjectOffering',
  subjectEnrolment: 'SubjectEnrolment',
  program: 'Program',
  programOffering: 'ProgramOffering',
  programEnrolment: 'ProgramEnrolment',
  subjectEnrolmentInProgram: 'SubjectEnrolment',
} as const satisfies Record<keyof World, string>

describe('held records export (extension)', () => {
  let t: TestService
  let a: Rto
  let b: Rto
  let aWorld: World
  let bWorld: World
  let secondSubmittedAt: string
  before(async () => {
    t = await startTestService()
    ;[a, b] = [await newRto(t), await newRto(t)]
    ;[aWorld, bWorld] = [await world(), await world()]
    await a.reporter.submitted(allOf(aWorld))
    await b.reporter.submitted(allOf(bWorld))
    // A's second submission: a new version of the student, and one enrolment voided.
    const renamed = { ...aWorld.student, familyName: 'Renamed', changeTrackingIdentifier: 'v2' }
    const batch = await a.reporter.submitted([
      { segment: 'student', body: renamed },
      { segment: 'subjectenrolment', body: voided(aWorld.subjectEnrolment, 'remove_duplicate_record') },
    ])
    secondSubmittedAt = (await a.reporter.request('GET', a.reporter.batchPath(batch))).json.submittedAt
  })
  after(() => t.close())

  const page = (rto: Rto, query: string) => rto.reporter.request('GET', `${V1}/held-records?${query}`)

  /** Every held record of the type for the RTO, following nextAfter. */
  async function allHeld(rto: Rto, resourceType: string, pageSize = 500): Promise<Record<string, any>[]> {
    const records: Record<string, any>[] = []
    let cursor: string | null = null
    do {
      const response = await page(
        rto,
        `resourceType=${resourceType}&pageSize=${pageSize}${cursor ? `&after=${cursor}` : ''}`,
      )
      assert.equal(response.status, 200, response.text)
      records.push(...response.json.results)
      cursor = response.json.nextAfter
    } while (cursor)
    return records
  }

  it("returns only the caller's RTO's records, each type's with its content, never another RTO's", async () => {
    for (const [rto, w, other] of [
      [b, bWorld, aWorld],
      [a, aWorld, bWorld],
    ] as const) {
      for (const type of new Set(Object.values(TYPES))) {
        const held = await allHeld(rto, type)
        const uids = held.map((h) => h.resourceUID)
        const own = (Object.keys(TYPES) as (keyof World)[]).filter((name) => TYPES[name] === type)
        for (const name of own)
          if (!(rto === a && name === 'subjectEnrolment')) assert.ok(uids.includes(uidOf(w[name])))
        for (const name of own) assert.ok(!uids.includes(uidOf(other[name])), `${type} of another RTO`)
      }
    }
    const [location] = await allHeld(b, 'DeliveryLocation')
    assert.deepEqual(location!.record, bWorld.location)
    assert.equal(location!.jurisdiction, 'NSW')
    assert.equal(location!.changeTrackingIdentifier, bWorld.location.changeTrackingIdentifier ?? null)
  })

  it('gives the latest version only, and leaves voided records out', async () => {
    const students = await allHeld(a, 'Student')
    assert.deepEqual(
      students.map((s) => [s.resourceUID, s.record.familyName, s.changeTrackingIdentifier, s.submissionDateTime]),
      [[aWorld.student.studentUID, 'Renamed', 'v2', secondSubmittedAt]],
    )
    const enrolments = await page(a, 'resourceType=SubjectEnrolment')
    assert.deepEqual(
      enrolments.json.results.map((e: { resourceUID: string }) => e.resourceUID),
      [aWorld.subjectEnrolmentInProgram.subjectEnrolmentUID],
    )
    assert.equal(enrolments.json.numberOfResults, 1)
  })

  it('pages in UID order along nextAfter, counts on the first page only, and says when the RTO last submitted', async () => {
    const c = await newRto(t)
    const template = (await world()).location
    const locations = Array.from({ length: 5 }, (_, i) => ({
      ...template,
      deliveryLocationUID: randomUUID(),
      deliveryLocationIdentifier: `LOC${i}`,
    }))
    const batch = await c.reporter.submitted(locations.map((body) => ({ segment: 'deliverylocation', body })))
    const submittedAt = (await c.reporter.request('GET', c.reporter.batchPath(batch))).json.submittedAt
    const pages: Record<string, any>[] = []
    let cursor: string | null = null
    do {
      const response = await page(
        c,
        `resourceType=DeliveryLocation&pageSize=2${cursor ? `&after=${cursor.toUpperCase()}` : ''}`,
      )
      assert.equal(response.status, 200, response.text)
      pages.push(response.json)
      cursor = response.json.nextAfter
    } while (cursor)
    assert.deepEqual(
      pages.map((p) => [p.results.length, p.numberOfResults, p.pageSize, p.latestSubmissionAt]),
      [
        [2, 5, 2, submittedAt],
        [2, undefined, 2, submittedAt],
        [1, undefined, 2, submittedAt],
      ],
    )
    const uids = pages.flatMap((p) => p.results.map((r: { resourceUID: string }) => r.resourceUID))
    assert.deepEqual(uids, locations.map((l) => l.deliveryLocationUID).sort())
    assert.equal(pages.at(-1)!.nextAfter, null)
    // An RTO that never submitted: an empty first page.
    const empty = await page(await newRto(t), 'resourceType=Student')
    assert.deepEqual(
      [empty.json.results, empty.json.numberOfResults, empty.json.latestSubmissionAt, empty.json.nextAfter],
      [[], 0, null, null],
    )
  })

  it('resourceUID: only the records named that the RTO holds (repeated or comma-separated), at most 100 a request; the SDK asks 100 at a time', async () => {
    const held = aWorld.subjectEnrolmentInProgram.subjectEnrolmentUID
    const voidedUid = aWorld.subjectEnrolment.subjectEnrolmentUID
    const theirs = bWorld.subjectEnrolmentInProgram.subjectEnrolmentUID
    const unknown = randomUUID()
    for (const query of [
      `resourceUID=${held}&resourceUID=${voidedUid}&resourceUID=${theirs}&resourceUID=${unknown}`,
      `resourceUID=${held.toUpperCase()},${voidedUid},${theirs}&resourceUID=${unknown}`,
    ]) {
      const response = await page(a, `resourceType=SubjectEnrolment&${query}`)
      assert.equal(response.status, 200, response.text)
      assert.deepEqual(
        response.json.results.map((r: { resourceUID: string }) => r.resourceUID),
        [held],
      )
      assert.equal(response.json.numberOfResults, 1)
    }
    const tooMany = Array.from({ length: 101 }, () => randomUUID()).join(',')
    const refused = await page(a, `resourceType=SubjectEnrolment&resourceUID=${tooMany}`)
    assert.equal(refused.status, 400, refused.text)
    assert.equal((await page(a, 'resourceType=SubjectEnrolment&resourceUID=nope')).status, 400)

    const clientId = `lookup-${randomBytes(4).toString('hex')}`
    const { secret } = await addClient(t.service.database.db, { clientId, rto: a.rto, scopes: [Scopes.read] })
    const sdk = new Vetrs({ baseUrl: t.baseUrl, credentials: { clientId, clientSecret: secret } })
    const many = [...Array.from({ length: 150 }, () => randomUUID()), held, theirs]
    const found: string[] = []
    for await (const record of sdk.heldRecords('SubjectEnrolment', { resourceUIDs: many }))
      found.push(record.resourceUID)
    assert.deepEqual(found, [held])
  })

  it('refuses bad input as problem details, and needs a token with scope vet:read', async () => {
    for (const query of [
      'resourceType=student',
      'resourceType=Nope',
      '',
      'resourceType=Student&after=not-a-uuid',
      'resourceType=Student&pageSize=0',
      'resourceType=Student&pageSize=501',
      'resourceType=Student&pageNumber=2',
    ]) {
      const response = await page(a, query)
      assert.equal(response.status, 400, `${query}: ${response.text}`)
      assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/)
      assert.ok(response.json.errors.length > 0, query)
    }
    assert.equal((await call(t.baseUrl, 'GET', `${V1}/held-records?resourceType=Student`)).status, 401)
    const clientId = `report-only-${randomBytes(4).toString('hex')}`
    const { secret } = await addClient(t.service.database.db, { clientId, rto: a.rto, scopes: [Scopes.report] })
    const reportOnly = await call(t.baseUrl, 'GET', `${V1}/held-records?resourceType=Student`, {
      token: await t.token(clientId, secret),
    })
    assert.equal(reportOnly.status, 403, reportOnly.text)
  })

  it('SDK: heldRecords pages through one type; heldDataset reads every type as one state, through another client of the RTO with scope vet:read only', async () => {
    const sdkClientId = `sdk-${randomBytes(4).toString('hex')}`
    const { secret } = await addClient(t.service.database.db, {
      clientId: sdkClientId,
      rto: a.rto,
      scopes: [Scopes.read],
    })
    const vetrs = new Vetrs({ baseUrl: t.baseUrl, credentials: { clientId: sdkClientId, clientSecret: secret } })
    const seen: number[] = []
    const offerings: string[] = []
    for await (const held of vetrs.heldRecords('subjectoffering', { pageSize: 1, onPage: (p) => seen.push(p.read) }))
      offerings.push(held.resourceUID)
    assert.deepEqual(offerings, [aWorld.subjectOffering.subjectOfferingUID].sort())
    assert.deepEqual(seen, [1])
    const dataset = await vetrs.heldDataset({ pageSize: 2 })
    assert.equal(dataset.latestSubmissionAt, secondSubmittedAt)
    const expected = (Object.keys(TYPES) as (keyof World)[])
      .filter((name) => name !== 'subjectEnrolment')
      .map((name) => `${TYPES[name]} ${uidOf(aWorld[name])}`)
      .sort()
    assert.deepEqual(dataset.records.map((h) => `${h.resourceType} ${h.resourceUID}`).sort(), expected)

    // A submission landing between two pages of the read: the read starts again, and sees it.
    const added: Record<string, unknown> = { ...(await world()).location, deliveryLocationIdentifier: 'ADDED' }
    let requests = 0
    const interrupted = new Vetrs({
      baseUrl: t.baseUrl,
      credentials: { clientId: sdkClientId, clientSecret: secret },
      fetch: async (input, init) => {
        if (String(input).includes('/held-records') && ++requests === 3)
          await a.reporter.submitted([{ segment: 'deliverylocation', body: added }])
        return fetch(input, init)
      },
    })
    const reread = await interrupted.heldDataset({ pageSize: 2 })
    assert.ok(requests > 8, 'read again')
    assert.ok(reread.records.some((h) => h.resourceUID === added.deliveryLocationUID))
    assert.notEqual(reread.latestSubmissionAt, secondSubmittedAt)
    assert.equal(reread.records.length, expected.length + 1)
  })
})
