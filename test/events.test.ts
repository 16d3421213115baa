// Events (issue 33): the outbox and the change feed. Each kind of change writes exactly one event in
// its own transaction, a change that rolls back or is refused writes none, and GET /events pages an
// RTO's events in order after a cursor, resumes from a stored cursor, and shows no other RTO's events.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { COLLECTOR_STREAM, recordClientChange, recordEvent, toCloudEvent } from '../src/modules/events/index.ts'
import { addClient as registerClient, rotateSecret, setEnabled } from '../src/platform/auth/clients.service.ts'
import { loadRelease } from '../src/modules/reference-data/index.ts'
import { parseReleaseFile } from '../src/modules/reference-data/release-file.ts'
import { addClient } from '../src/platform/auth/clients.service.ts'
import {
  allOf,
  declarationBody,
  newRto,
  startTestService,
  V1,
  voided,
  world,
  type Rto,
  type TestService,
} from './support/index.ts'

type Event = Record<string, any>

/** Every event of the RTO after the cursor, following nextCursor page by page. */
async function feed(rto: Rto, after = '0', pageSize = 500): Promise<{ events: Event[]; cursor: string }> {
  const events: Event[] = []
  let cursor = after
  for (;;) {
    const page = await rto.reporter.request('GET', `${V1}/events?after=${cursor}&pageSize=${pageSize}`)
    assert.equal(page.status, 200, page.text)
    events.push(...page.json.events)
    if (page.json.events.length === 0) {
      assert.equal(page.json.nextCursor, cursor, 'an empty page gives the same cursor back')
      return { events, cursor }
    }
    cursor = page.json.nextCursor
  }
}

const typesOf = (events: Event[]) => events.map((e) => e.type.replace('au.gov.vetrs.', ''))

describe('events: the outbox and the change feed', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('each kind of batch change writes exactly one event, in order: created, discarded, validated (with counts by level), submitted, reconciled, records voided', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const discarded = await r.newBatch()
    assert.equal((await r.request('DELETE', r.batchPath(discarded))).status, 204)

    const w = await world()
    const batch = await r.batchWith(allOf(w))
    const { status, results } = await r.validate(batch)
    const submitted = await r.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    await r.waitForReconciled(batch)

    const voiding = await r.batchWith([{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment) }])
    const second = await r.validate(voiding)
    assert.deepEqual(
      second.results.filter((x) => x.validationMessageLevel === 'Error'),
      [],
    )
    assert.equal((await r.submit(voiding)).status, 200)
    await r.waitForReconciled(voiding)

    const { events } = await feed(rto)
    assert.deepEqual(typesOf(events), [
      'batch.created',
      'batch.discarded',
      'batch.created',
      'batch.validated',
      'batch.submitted',
      'batch.reconciled',
      'batch.created',
      'batch.validated',
      'batch.submitted',
      'records.voided',
      'batch.reconciled',
    ])
    assert.deepEqual(
      events.map((e) => e.sequence),
      events.map((_, i) => String(i + 1)),
      'numbered 1, 2, 3... without gaps',
    )
    assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'every id unique')
    for (const e of events) {
      assert.equal(e.specversion, '1.0')
      assert.equal(e.source, '/vet-provider/v1')
      assert.equal(e.datacontenttype, 'application/json')
      assert.equal(e.rtoid, rto.rto)
      assert.equal(e.jurisdiction, 'NSW')
      assert.match(e.id, /^[0-9a-f-]{36}$/)
      assert.ok(!Number.isNaN(Date.parse(e.time)))
    }
    const tokens = [discarded, discarded, batch, batch, batch, batch, voiding, voiding, voiding, voiding, voiding]
    assert.deepEqual(
      events.map((e) => [e.subject, e.data.transactionBatchToken]),
      tokens.map((token) => [`NSW/transaction-batch/${token}`, token]),
    )
    const validated = events[3]!
    const count = (level: string) => results.filter((x) => x.validationMessageLevel === level).length
    assert.deepEqual(validated.data.resultsByLevel, { Error: count('Error'), Warning: count('Warning') })
    assert.equal(validated.data.hasBlockingValidationFailures, status.hasBlockingValidationFailures)
    assert.deepEqual(
      [events[4]!.data.numberOfRecordsSubmitted, events[4]!.data.submittedAt],
      [allOf(w).length, submitted.json.submittedAt],
    )
    assert.deepEqual(
      [events[9]!.data.numberOfRecordsVoided, events[9]!.data.voidedByResourceType],
      [1, { SubjectEnrolment: 1 }],
    )
    assert.equal(events[8]!.data.submissionNumber, events[9]!.data.submissionNumber)
  })

  it('an assessment completed, a declaration made and one superseded: one event each, with the period and no personal data', async () => {
    const rto = await newRto(t)
    await rto.assessor.assess()
    const first = await rto.assessor.declare(declarationBody())
    assert.equal(first.status, 200, first.text)
    const second = await rto.assessor.declare(declarationBody({ RTOUserName: 'Sam Other' }))
    assert.equal(second.status, 200, second.text)

    const { events } = await feed(rto)
    assert.deepEqual(typesOf(events), [
      'assessment.completed',
      'declaration.made',
      'declaration.superseded',
      'declaration.made',
    ])
    for (const e of events) assert.deepEqual([e.jurisdiction, e.reportingperiod], ['NSW', 202604])
    assert.deepEqual(events[0]!.data.resultsByLevel, { Error: 0, Warning: 0 })
    assert.equal(events[0]!.subject, 'reporting-period/NSW/202604/validate')
    const firstId = first.json.declaration.declarationId
    const secondId = second.json.declaration.declarationId
    assert.equal(events[1]!.data.declarationId, firstId)
    assert.deepEqual(events[2]!.data, { declarationId: firstId, supersededBy: secondId })
    assert.deepEqual([events[3]!.data.declarationId, events[3]!.data.supersedes], [secondId, [firstId]])
    const text = JSON.stringify(events)
    assert.ok(!text.includes('alex.citizen@example.edu.au') && !text.includes('Sam Other'), 'no name or e-mail')
  })

  it('no event for a change refused or rolled back, and a rolled-back number is taken again (no gap)', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const batch = await r.newBatch()
    // Refused: submit before validation (409), a declaration before any assessment (409).
    assert.equal((await r.submit(batch)).status, 409)
    assert.equal((await rto.assessor.declare(declarationBody())).status, 409)
    // Rolled back after the event was written: the transaction fails, and with it the event.
    const db = t.service.database.db
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await recordEvent(tx, {
          rto: rto.rto,
          type: 'au.gov.vetrs.batch.created',
          subject: 'NSW/transaction-batch/rolled-back',
          data: {},
        })
        throw new Error('the change fails after its event')
      }),
      /the change fails/,
    )
    assert.equal((await r.request('DELETE', r.batchPath(batch))).status, 204)
    const { events } = await feed(rto)
    assert.deepEqual(typesOf(events), ['batch.created', 'batch.discarded'])
    assert.deepEqual(
      events.map((e) => e.sequence),
      ['1', '2'],
    )
  })

  it('the feed pages in order after a cursor and resumes from a stored cursor; concurrent changes are numbered without gaps', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const tokens = await Promise.all(Array.from({ length: 12 }, () => r.newBatch()))
    const pages: Event[][] = []
    let cursor = '0'
    for (;;) {
      const page = await r.request('GET', `${V1}/events?after=${cursor}&pageSize=5`)
      assert.equal(page.status, 200, page.text)
      if (page.json.events.length === 0) break
      pages.push(page.json.events)
      cursor = page.json.nextCursor
      assert.equal(cursor, page.json.events.at(-1).sequence)
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [5, 5, 2],
    )
    const events = pages.flat()
    assert.deepEqual(
      events.map((e) => e.sequence),
      Array.from({ length: 12 }, (_, i) => String(i + 1)),
    )
    assert.deepEqual(events.map((e) => e.data.transactionBatchToken).sort(), [...tokens].sort())

    // A reader that stored cursor 12 resumes there after new changes: exactly the new ones.
    await r.request('DELETE', r.batchPath(tokens[0]!))
    await r.newBatch()
    const resumed = await feed(rto, cursor, 1)
    assert.deepEqual(typesOf(resumed.events), ['batch.discarded', 'batch.created'])
    assert.deepEqual(
      resumed.events.map((e) => e.sequence),
      ['13', '14'],
    )
    assert.equal(resumed.cursor, '14')
    // Reading a page again (a reader that crashed before storing its cursor) gives the same events.
    const again = await r.request('GET', `${V1}/events?after=12&pageSize=500`)
    assert.deepEqual(again.json.events, resumed.events)
  })

  it("the feed is the caller's RTO's alone, needs vet:read, and refuses a bad cursor or page size with 400", async () => {
    const one = await newRto(t)
    const two = await newRto(t)
    await one.reporter.newBatch()
    await one.reporter.newBatch()
    await two.reporter.newBatch()
    const ofOne = await feed(one)
    const ofTwo = await feed(two)
    assert.deepEqual(
      ofOne.events.map((e) => e.rtoid),
      [one.rto, one.rto],
    )
    assert.deepEqual(
      ofTwo.events.map((e) => [e.rtoid, e.sequence]),
      [[two.rto, '1']],
    )
    for (const query of ['after=-1', 'after=abc', 'after=1234567890123456789', 'pageSize=0', 'pageSize=501', 'x=1']) {
      const response = await one.reporter.request('GET', `${V1}/events?${query}`)
      assert.equal(response.status, 400, `${query}: ${response.text}`)
    }
    // A client of the RTO granted vet:report alone: 403.
    const clientId = `report-only-${one.rto}`
    const { secret } = await addClient(t.service.database.db, { clientId, rto: one.rto, scopes: ['vet:report'] })
    const reportOnly = await t.token(clientId, secret)
    const response = await fetch(`${t.baseUrl}${V1}/events`, { headers: { authorization: `Bearer ${reportOnly}` } })
    assert.equal(response.status, 403)
  })

  it("a client registered, its secret rotated, disabled and enabled (as the CLI and the console do them): one event each in its RTO's feed, never the secret; a refused registration none", async () => {
    const rto = await newRto(t)
    const db = t.service.database.db
    const clientId = `sms-${rto.rto}`
    const { secret } = await registerClient(db, { clientId, rto: rto.rto, scopes: ['vet:report'] }, recordClientChange)
    await assert.rejects(
      registerClient(db, { clientId, rto: rto.rto, scopes: ['vet:read'] }, recordClientChange),
      /already exists/,
    )
    const rotated = await rotateSecret(db, clientId, recordClientChange)
    await setEnabled(db, clientId, false, recordClientChange)
    await setEnabled(db, clientId, true, recordClientChange)
    const { events } = await feed(rto)
    assert.deepEqual(
      events.map((e) => [e.type, e.subject, e.data]),
      ['registered', 'secret-rotated', 'disabled', 'enabled'].map((kind) => [
        `au.gov.vetrs.client.${kind}`,
        `clients/${clientId}`,
        { clientId, scopes: ['vet:report'] },
      ]),
    )
    const text = JSON.stringify(events)
    assert.ok(!text.includes(secret) && !text.includes(rotated.secret), 'no secret in events')
  })

  // Last: it replaces a seeded dataset, which the tests above validate against.
  it("a reference-data release published writes one collector-wide event, in no RTO's feed; the same release again, or the seed, writes none", async () => {
    const db = t.service.database.db
    const collectorEvents = async () =>
      (
        await db
          .selectFrom('event_outbox')
          .selectAll()
          .select((eb) => [eb.cast<string>('sequence', 'text').as('sequence')])
          .where('rto_id', '=', COLLECTOR_STREAM)
          .orderBy('event_outbox.sequence')
          .execute()
      ).map((row) => toCloudEvent({ ...row, event_id: String(row.event_id) }))
    assert.deepEqual(await collectorEvents(), [], 'seeding a new database is not a release')
    const release = () => parseReleaseFile('code\tdescription\nA\tAlpha\nB\tBravo\n', 'x.tsv')
    const loaded = await loadRelease(db, 'study-reason', release())
    await loadRelease(db, 'study-reason', release()) // unchanged: no version, no event
    const events = await collectorEvents()
    assert.equal(events.length, 1)
    const [event] = events
    assert.deepEqual(
      [event!.type, event!.subject, event!.rtoid, event!.sequence],
      ['au.gov.vetrs.reference-data.published', 'reference-data/study-reason', undefined, '1'],
    )
    assert.deepEqual(event!.data, {
      dataset: 'study-reason',
      created: 2,
      updated: 0,
      endDated: loaded.endDated,
      sysEffectiveFrom: loaded.sysEffectiveFrom,
    })
    const rto = await newRto(t)
    assert.deepEqual((await feed(rto)).events, [])
  })
})
