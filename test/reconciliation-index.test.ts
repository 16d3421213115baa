// Reconciliation's index after each submission of a sequence that raises, lowers, moves, voids and
// resubmits must equal a recount from scratch: this file's oracle reads the RTO's held records alone
// (never the index's items, links or dates) and computes each derived activity date and day count the long way (docs/decisions.md, "Activity
// dates"), and a few dates are also stated outright. The service recomputes only what a submission
// touches; this is what any cheaper way of keeping the index (bench/results.md, the growth with the
// RTO's held size) has to keep equal.
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  allOf,
  newRto,
  startTestService,
  uploadsOf,
  voided,
  world,
  type Rto,
  type TestService,
} from './support/index.ts'

/**
 * Whose dates a record's is the latest of, in the order they are computed, and the field of each source
 * that names it: the oracle's own statement of docs/decisions.md's "Activity dates", read from the held
 * bodies, so it shares neither the index's links nor its code.
 */
const DATED_BY: [string, [string, (body: Record<string, any>) => unknown[]][]][] = [
  ['SubjectOffering', [['SubjectEnrolment', (b) => [b.subjectOfferingUID]]]],
  [
    'ProgramOffering',
    [
      ['ProgramEnrolment', (b) => [b.programOfferingUID]],
      ['SubjectOffering', (b) => [b.programOfferingUID]],
    ],
  ],
  ['Subject', [['SubjectOffering', (b) => [b.subjectUID]]]],
  ['Program', [['ProgramOffering', (b) => [b.programUID]]]],
  [
    'Student',
    [
      ['ProgramEnrolment', (b) => [b.studentUID]],
      ['SubjectEnrolment', (b) => [b.studentUID]],
    ],
  ],
  [
    'DeliveryLocation',
    [
      [
        'SubjectEnrolment',
        (b) => (Array.isArray(b.locations) ? b.locations.map((l: any) => l?.deliveryLocationUID) : []),
      ],
    ],
  ],
]

interface Item {
  type: string
  uid: string
  enrolmentDate: string | null
  searchDate: string
}

describe('reconciliation index against a recount', () => {
  let t: TestService
  let rto: Rto
  before(async () => {
    t = await startTestService()
    rto = await newRto(t)
  })
  after(() => t.close())

  const itemsOf = async (): Promise<Map<string, Item>> => {
    const { rows } = await sql<{ t: string; u: string; e: string | null; s: string }>`
      SELECT resource_type AS t, resource_uid::text AS u, enrolment_activity_date::text AS e,
             student_activity_date::text AS s
        FROM reconciliation_item WHERE rto_id = ${rto.rto}`.execute(t.service.database.db)
    return new Map(rows.map((r) => [`${r.t}/${r.u}`, { type: r.t, uid: r.u, enrolmentDate: r.e, searchDate: r.s }]))
  }

  /**
   * Every item's dates and every day count as a recount from scratch computes them, against the index.
   * The recount reads the held records alone (each current version's body and submission time): which
   * records are live, each enrolment's latest lifecycle date, and who names whom, so nothing the index
   * keeps (its links, its enrolment dates, its item list) can agree with it by construction.
   */
  const assertIndexIsARecount = async (step: string) => {
    const db = t.service.database.db
    const items = await itemsOf()
    const { rows: held } = await sql<{ t: string; u: string; d: string; body: Record<string, any> }>`
      SELECT resource_type AS t, resource_uid::text AS u, (submitted_at AT TIME ZONE 'UTC')::date::text AS d, body
        FROM held_record
       WHERE rto_id = ${rto.rto} AND is_current AND state_in_submission = 'In submission'`.execute(db)
    const live = new Map(held.map((r) => [`${r.t}/${r.u}`, r]))
    assert.deepEqual([...items.keys()].sort(), [...live.keys()].sort(), `${step}: one item for each live held record`)
    const expected = new Map<string, string | null>()
    for (const record of held) {
      if (!record.t.endsWith('Enrolment')) continue
      const dates = (Array.isArray(record.body.lifecycle) ? record.body.lifecycle : [])
        .map((state: any) => state?.studentActivityDate)
        .filter((date: unknown): date is string => typeof date === 'string')
        .sort()
      expected.set(`${record.t}/${record.u}`, dates.at(-1) ?? null)
    }
    for (const [type, sources] of DATED_BY) {
      for (const record of held) {
        if (record.t !== type) continue
        let latest: string | null = null
        for (const [sourceType, named] of sources) {
          for (const source of held) {
            if (source.t !== sourceType) continue
            if (!named(source.body).some((uid) => typeof uid === 'string' && uid.toLowerCase() === record.u)) continue
            const date = expected.get(`${source.t}/${source.u}`) ?? null
            if (date !== null && (latest === null || date > latest)) latest = date
          }
        }
        expected.set(`${type}/${record.u}`, latest)
      }
    }
    const counts = new Map<string, number>()
    for (const [key, item] of items) {
      const latest = expected.get(key) ?? null
      assert.equal(item.enrolmentDate, latest, `${step}: enrolment activity date of ${key}`)
      const searchDate = latest ?? live.get(key)!.d
      assert.equal(item.searchDate, searchDate, `${step}: searched-by date of ${key}`)
      const day = `${item.type} ${searchDate}`
      counts.set(day, (counts.get(day) ?? 0) + 1)
    }
    const { rows: stored } = await sql<{ t: string; d: string; n: number }>`
      SELECT resource_type AS t, student_activity_date::text AS d, items AS n
        FROM reconciliation_day_count WHERE rto_id = ${rto.rto}`.execute(db)
    assert.deepEqual(
      new Map(stored.map((row) => [`${row.t} ${row.d}`, row.n])),
      counts,
      `${step}: day counts are the items' counts`,
    )
  }

  const dateOf = async (type: string, uid: string) => (await itemsOf()).get(`${type}/${uid}`)?.searchDate

  /** A seeded sequence of numbers in [0, 1) (mulberry32): the same steps for the same seed. */
  const randomFrom = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  it('raise, lower to another holder, move, void and resubmit: after each, every date and day count equals a recount', async () => {
    const a = await world()
    a.subjectOffering.programOfferingUID = a.programOffering.programOfferingUID
    const b = await world()
    const cancelled = (date: string) => ({
      studentStatus: 'Cancelled',
      studentActivityDate: date,
      studentStatusReason: 'Formal_withdrawal',
    })
    // A second enrolment in a's offering, whose date (20 October) is the offering's latest at first.
    const second = {
      ...structuredClone(a.subjectEnrolment),
      subjectEnrolmentUID: randomUUID(),
      changeTrackingIdentifier: 'second-1',
      lifecycle: [...a.subjectEnrolment.lifecycle, cancelled('2026-10-20')],
    }
    const SE = 'subjectenrolment'
    await rto.reporter.submitted([...allOf(a), ...allOf(b), { segment: SE, body: second }])
    await assertIndexIsARecount('first submission')
    assert.equal(await dateOf('SubjectOffering', a.subjectOffering.subjectOfferingUID), '2026-10-20')

    // Raise: a's enrolment cancelled on 2 November moves everything above it.
    const raised = {
      ...a.subjectEnrolment,
      changeTrackingIdentifier: 'first-2',
      lifecycle: [...a.subjectEnrolment.lifecycle, cancelled('2026-11-02')],
    }
    await rto.reporter.submitted([{ segment: SE, body: raised }])
    await assertIndexIsARecount('raise')
    assert.equal(await dateOf('DeliveryLocation', a.location.deliveryLocationUID), '2026-11-02')
    assert.equal(await dateOf('Program', a.program.programUID), '2026-11-02')

    // Lower: a's enrolment moves to b's offering and location. a's offering held 2 November through it,
    // so it is read again and falls to the second enrolment's 20 October; b's rises to 2 November.
    const toB = (body: Record<string, any>, changeTrackingIdentifier: string) => ({
      ...body,
      changeTrackingIdentifier,
      subjectOfferingUID: b.subjectOffering.subjectOfferingUID,
      locations: [{ ...body.locations[0], deliveryLocationUID: b.location.deliveryLocationUID }],
    })
    const movedFirst = toB(raised, 'first-3')
    await rto.reporter.submitted([{ segment: SE, body: movedFirst }])
    await assertIndexIsARecount('lower')
    assert.equal(await dateOf('SubjectOffering', a.subjectOffering.subjectOfferingUID), '2026-10-20')
    assert.equal(await dateOf('Subject', a.subject.subjectUID), '2026-10-20')
    assert.equal(await dateOf('SubjectOffering', b.subjectOffering.subjectOfferingUID), '2026-11-02')

    // Move the other holder too: a's offering falls to its last enrolment's 5 October.
    await rto.reporter.submitted([{ segment: SE, body: toB(second, 'second-2') }])
    await assertIndexIsARecount('move')
    assert.equal(await dateOf('SubjectOffering', a.subjectOffering.subjectOfferingUID), '2026-10-05')
    assert.equal(await dateOf('DeliveryLocation', b.location.deliveryLocationUID), '2026-11-02')

    // Void: b's offering loses the enrolment that held its latest date, and falls to 20 October.
    await rto.reporter.submitted([
      { segment: SE, body: voided({ ...movedFirst, changeTrackingIdentifier: 'first-4' }) },
    ])
    await assertIndexIsARecount('void')
    assert.equal(await dateOf('SubjectOffering', b.subjectOffering.subjectOfferingUID), '2026-10-20')
    assert.equal(await dateOf('Student', a.student.studentUID), '2026-10-20')

    // Resubmit records that are only referenced: their dates stay those of their enrolments, not the
    // day of this submission.
    const again = uploadsOf(a, 'location', 'subject', 'student', 'subjectOffering').map((upload) => ({
      ...upload,
      body: { ...upload.body, changeTrackingIdentifier: `${upload.body.changeTrackingIdentifier}-again` },
    }))
    await rto.reporter.submitted(again)
    await assertIndexIsARecount('resubmit referenced records')
    assert.equal(await dateOf('DeliveryLocation', a.location.deliveryLocationUID), '2026-10-05')
    assert.equal(await dateOf('Student', a.student.studentUID), '2026-10-20')
  })
  // Seeded random submissions of subject enrolments that come, rise, move between two offerings and
  // locations, and are voided, some in the same batch: after each, the index must equal a recount. Set
  // RECONCILIATION_SEED to try another sequence; a failure names the seed and the step.
  it('random enrolments arriving, rising, moving and voided: after each submission, every date and day count equals a recount', async () => {
    const seed = Number(process.env.RECONCILIATION_SEED ?? 19)
    const random = randomFrom(seed)
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
    const a = await world()
    a.subjectOffering.programOfferingUID = a.programOffering.programOfferingUID
    const b = await world()
    await rto.reporter.submitted([...allOf(a), ...allOf(b)])
    const places = [a, b].map((w) => ({
      subjectOfferingUID: w.subjectOffering.subjectOfferingUID,
      deliveryLocationUID: w.location.deliveryLocationUID,
    }))
    interface Held {
      body: Record<string, any>
      version: number
    }
    const held: Held[] = []
    const day = () => `2026-${pick(['10', '11'])}-${String(6 + Math.floor(random() * 19)).padStart(2, '0')}`
    const placed = (body: Record<string, any>, place: (typeof places)[number]) => ({
      ...body,
      subjectOfferingUID: place.subjectOfferingUID,
      locations: [{ ...body.locations[0], deliveryLocationUID: place.deliveryLocationUID }],
    })
    for (let step = 1; step <= 12; step++) {
      const uploads: { segment: string; body: Record<string, any> }[] = []
      const touched = new Set<Held>()
      const operations = 1 + Math.floor(random() * 3)
      const done: string[] = []
      for (let n = 0; n < operations; n++) {
        const live = held.filter((h) => !h.body.isVoided && !touched.has(h))
        const operation = live.length === 0 ? 'arrive' : pick(['arrive', 'arrive', 'rise', 'move', 'void'] as const)
        let record: Held
        if (operation === 'arrive') {
          const lifecycle = [...a.subjectEnrolment.lifecycle]
          if (random() < 0.7)
            lifecycle.push({
              studentStatus: 'Cancelled',
              studentActivityDate: day(),
              studentStatusReason: 'Formal_withdrawal',
            })
          record = {
            body: placed(
              { ...structuredClone(a.subjectEnrolment), subjectEnrolmentUID: randomUUID(), lifecycle },
              pick(places),
            ),
            version: 0,
          }
          held.push(record)
        } else {
          record = pick(live)
          const cancelled = record.body.lifecycle.at(-1).studentStatus === 'Cancelled'
          // An enrolment cancelled already has no later state to take: it moves instead.
          const change = operation === 'rise' && cancelled ? 'move' : operation
          const elsewhere = places.find((p) => p.subjectOfferingUID !== record.body.subjectOfferingUID)!
          if (change === 'rise') {
            const state = {
              studentStatus: 'Cancelled',
              studentActivityDate: day(),
              studentStatusReason: 'Formal_withdrawal',
            }
            record.body = { ...record.body, lifecycle: [...record.body.lifecycle, state] }
          } else if (change === 'move') record.body = placed(record.body, elsewhere)
          else record.body = voided(record.body)
          done.push(change)
        }
        if (operation === 'arrive') done.push('arrive')
        touched.add(record)
        record.version++
        record.body = { ...record.body, changeTrackingIdentifier: `se-${record.version}` }
      }
      for (const record of touched) uploads.push({ segment: 'subjectenrolment', body: record.body })
      await rto.reporter.submitted(uploads)
      await assertIndexIsARecount(`seed ${seed}, step ${step} (${done.join(', ')})`)
    }
  })
})
