// The audit trail (issue 33), through a real server on the embedded database and on PostgreSQL: an
// entry for each API read of personal data and each change, naming the client, the record and the
// RTO and nothing personal; a read whose entry cannot be written is refused (503, no data); each
// day's hash chains (one per lane) verify, and the verification (the use case and `npm run
// audit:verify`) names the lane and entry edited or removed; concurrent writers make gap-free chains per
// lane; on PostgreSQL two connections' open transactions do not wait for each other's lane; retention
// removes whole days only; the table refuses UPDATE and DELETE.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { AuditEntryInput } from '../src/domain/audit.ts'
import {
  auditInStatement,
  createAuditWriter,
  recordAudit,
  recordAuditEntries,
  searchAudit,
  verifyAudit,
  type StoredAuditEntry,
} from '../src/modules/audit/index.ts'
import { canonicalAroundStatus, canonicalText } from '../src/modules/audit/audit-chain.ts'
import { housekeepingJob } from '../src/modules/housekeeping/index.ts'
import { openDatabase, type Db } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { loadConfig } from '../src/config/config.ts'
import {
  allOf,
  call,
  createTestDatabase,
  declarationBody,
  newRto,
  onPostgres,
  PERIOD,
  startTestService,
  uidOf,
  V1,
  world,
  type TestService,
} from './support/index.ts'

const run = promisify(execFile)

/** Every entry of the RTO, newest first. */
async function entriesOf(db: Db, rto: string): Promise<StoredAuditEntry[]> {
  const all: StoredAuditEntry[] = []
  let before: { day: string; pos: number } | undefined
  for (;;) {
    const page = await searchAudit(db, { rto }, before, 500)
    all.push(...page.entries)
    if (!page.next) return all
    before = page.next
  }
}

const input = (changes: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
  actorKind: 'system',
  actorId: 'test',
  actorRole: null,
  sourceAddress: null,
  action: 'record.read',
  recordType: 'Student',
  recordId: '00000000-0000-4000-8000-000000000001',
  batchToken: null,
  rto: 'X1',
  outcome: 'success',
  status: 200,
  requestId: null,
  ...changes,
})

/** A day of its own for a test of the chain: entries at noon of that day. */
const noonOf = (day: string, n = 0) => new Date(Date.parse(`${day}T12:00:00.000Z`) + n)

/** Runs `work` on one connection of the pool: every entry it writes is in that connection's lane. */
const onOneConnection = <T>(db: Db, work: (connection: Db) => Promise<T>): Promise<T> =>
  db.connection().execute((connection) => work(connection as unknown as Db))

/** Each lane's numbers, sorted: what gap-free chains per lane look like is 1..n in each. */
function numbersByLane(written: readonly { lane: number; seq: number }[]): Map<number, number[]> {
  const lanes = new Map<number, number[]>()
  for (const { lane, seq } of written) lanes.set(lane, [...(lanes.get(lane) ?? []), seq])
  for (const numbers of lanes.values()) numbers.sort((a, b) => a - b)
  return lanes
}

describe('audit trail', () => {
  let t: TestService
  let db: Db
  before(async () => {
    t = await startTestService()
    db = t.service.database.db
  })
  after(() => t.close())

  it('writes one entry for each API read of personal data and each change, naming client, record and RTO, and nothing personal', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const w = await world()
    const studentUid = uidOf(w.student)
    const nsw = (rest: string) => `${V1}/NSW${rest}`
    const batch = await r.newBatch()
    const path = (rest = '') => r.batchPath(batch, rest)
    // Each step: the request, what it answers, the entry it must leave.
    const steps: {
      name: string
      send: () => Promise<{ status: number; text: string }>
      status: number
      entry: Partial<StoredAuditEntry>
    }[] = [
      {
        name: 'upload (POST)',
        send: () => r.request('POST', path('/student'), w.student),
        status: 201,
        entry: { action: 'record.upload', recordType: 'Student', recordId: studentUid, batchToken: batch },
      },
      {
        name: 'upload (PUT)',
        send: () => r.request('PUT', path(`/student/${studentUid}`), w.student),
        status: 200,
        entry: { action: 'record.upload', recordType: 'Student', recordId: studentUid, batchToken: batch },
      },
      {
        name: 'read a record of a batch',
        send: () => r.request('GET', path(`/student/${studentUid}`)),
        status: 200,
        entry: { action: 'record.read', recordType: 'Student', recordId: studentUid, batchToken: batch },
      },
      {
        name: 'list records of a batch',
        send: () => r.request('GET', path('/student')),
        status: 200,
        entry: { action: 'record.list', recordType: 'Student', recordId: null, batchToken: batch },
      },
      {
        name: 'remove a record',
        send: () => r.request('DELETE', path(`/student/${studentUid}`)),
        status: 204,
        entry: { action: 'record.remove', recordType: 'Student', recordId: studentUid },
      },
      {
        name: 'bulk upload',
        send: () =>
          call(t.baseUrl, 'POST', path('/records'), {
            token: r.token,
            headers: { 'content-type': 'application/x-ndjson' },
            body: allOf(w)
              .map(({ segment, body }) => JSON.stringify({ resourceType: typeOfSegment(segment), record: body }))
              .join('\n'),
          }),
        status: 200,
        entry: { action: 'record.bulk-upload', batchToken: batch },
      },
      {
        name: 'request validation',
        send: () => r.request('POST', path('/validate')),
        status: 201,
        entry: { action: 'validation.request', batchToken: batch },
      },
    ]
    const results: { name: string; entry: Partial<StoredAuditEntry> }[] = []
    for (const step of steps) {
      const answer = await step.send()
      assert.equal(answer.status, step.status, `${step.name}: ${answer.text}`)
      results.push(step)
    }
    await r.waitForValidated(batch)
    const later: typeof steps = [
      {
        name: 'failed validation results',
        send: () => r.request('GET', path('/failed-validation-results')),
        status: 200,
        entry: { action: 'validation.results.read', batchToken: batch },
      },
      {
        name: 'submit',
        send: () => r.request('POST', path('/submit')),
        status: 200,
        entry: { action: 'batch.submit', batchToken: batch },
      },
    ]
    for (const step of later) {
      const answer = await step.send()
      assert.equal(answer.status, step.status, `${step.name}: ${answer.text}`)
      results.push(step)
    }
    await r.waitForReconciled(batch)
    const enrolmentUid = uidOf(w.subjectEnrolment)
    const afterSubmit: typeof steps = [
      {
        name: 'held state of a record',
        send: () => r.request('GET', `${V1}/student/${studentUid}`),
        status: 200,
        entry: { action: 'held-record.read', recordType: 'Student', recordId: studentUid },
      },
      {
        name: 'held records export (what the NAT export reads)',
        send: () => r.request('GET', `${V1}/held-records?resourceType=Student`),
        status: 200,
        entry: { action: 'held-record.list', recordType: 'Student' },
      },
      {
        name: 'search-by-period',
        send: () => r.request('GET', `${V1}/search-by-period?resourceType=SubjectEnrolment&reportingPeriods=${PERIOD}`),
        status: 200,
        entry: { action: 'held-record.search', recordType: 'SubjectEnrolment' },
      },
      {
        name: 'uid-match',
        send: () =>
          r.request('POST', `${V1}/uid-match`, {
            resourceType: 'SubjectEnrolment',
            reportingPeriod: String(PERIOD),
            resourceUIDs: [enrolmentUid],
          }),
        status: 200,
        entry: { action: 'held-record.match', recordType: 'SubjectEnrolment' },
      },
      {
        name: 'related-resources',
        send: () => r.request('GET', `${V1}/student/${studentUid}/related-resources`),
        status: 200,
        entry: { action: 'held-record.related', recordType: 'student', recordId: studentUid },
      },
      {
        name: 'request an assessment',
        send: () => r.request('POST', `${V1}/reporting-period/NSW/${PERIOD}/validate`),
        status: 201,
        entry: { action: 'assessment.request' },
      },
    ]
    for (const step of afterSubmit) {
      const answer = await step.send()
      assert.equal(answer.status, step.status, `${step.name}: ${answer.text}`)
      results.push(step)
    }
    await rto.assessor.waitForFinished(PERIOD, 'NSW')
    const declared = await rto.assessor.declare(declarationBody())
    assert.equal(declared.status, 200, declared.text)
    results.push({ name: 'declare', entry: { action: 'declaration.make' } })
    const created = await call(t.baseUrl, 'POST', nsw('/transaction-batch'), { token: r.token })
    assert.equal(created.status, 201)
    const token = created.json.transactionBatchToken
    results.push({ name: 'create a batch', entry: { action: 'batch.create', batchToken: token } })
    assert.equal((await r.request('DELETE', r.batchPath(token))).status, 204)
    results.push({ name: 'discard a batch', entry: { action: 'batch.discard', batchToken: token } })
    const notZip = await call(t.baseUrl, 'POST', nsw('/nat-import'), {
      token: r.token,
      headers: { 'content-type': 'application/zip' },
      body: 'not a zip',
    })
    assert.equal(notZip.status, 400, notZip.text)
    results.push({ name: 'a refused NAT import', entry: { action: 'nat.import', outcome: 'refused', status: 400 } })

    const entries = await entriesOf(db, rto.rto)
    for (const { name, entry } of results) {
      const found = entries.find((e) =>
        Object.entries(entry).every(([field, value]) => (e as unknown as Record<string, unknown>)[field] === value),
      )
      assert.ok(found, `${name}: an entry ${JSON.stringify(entry)} (found ${entries.map((e) => e.action).join(', ')})`)
      assert.equal(found.actorKind, 'client', name)
      assert.equal(found.actorId, rto.clientId, name)
      assert.equal(found.rto, rto.rto, name)
      assert.match(found.sourceAddress ?? '', /127\.0\.0\.1/, name)
      assert.ok(found.requestId, name)
      if (!('outcome' in entry)) assert.equal(found.outcome, 'success', name)
    }
    // Nothing personal: the student's names, USI, birth date, e-mail and client identifier are in no entry.
    const text = JSON.stringify(entries)
    for (const value of [
      w.student.familyName,
      w.student.firstGivenName,
      w.student.uniqueStudentIdentifier,
      w.student.dateOfBirth,
      w.student.emailAddressPrimary,
      w.student.clientIdentifier,
      'Alex Citizen',
    ])
      assert.ok(!text.includes(String(value)), `no entry holds ${value}`)
    // Another RTO's client sees none of this in its RTO's entries, and its own reads are its own.
    const other = await newRto(t)
    assert.equal((await other.reporter.request('GET', `${V1}/student/${studentUid}`)).status, 200)
    const otherEntries = await entriesOf(db, other.rto)
    assert.deepEqual(
      otherEntries.map((e) => [e.action, e.actorId]),
      [['held-record.read', other.clientId]],
    )
  })

  it('what a request names is kept printable and bounded: a NUL or a long path segment never makes the entry, or the answer, fail', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const batch = await r.newBatch()
    const nul = await r.request('GET', r.batchPath(batch, '/student/%00'))
    assert.ok(nul.status < 500, `a NUL in the record's UID is refused as input, not by the audit trail: ${nul.text}`)
    const long = await r.request('GET', r.batchPath(batch, `/student/${'é'.repeat(33)}`)) // 198 characters on the wire, 33 é
    assert.ok(long.status < 500, long.text)
    const ids = (await entriesOf(db, rto.rto)).map((e) => e.recordId)
    assert.ok(ids.includes('\\u0000'), `the NUL kept as an escape: ${JSON.stringify(ids)}`)
    const kept = ids.find((id) => id?.startsWith('\\u00e9'))
    assert.ok(kept && kept.length === 100, `each é kept as its escape, cut at the record id's 100: ${kept?.length}`)
  })

  it('a read whose entry cannot be written is refused with 503 and no data; an upload is not made without its entry; a change audited after it commits still answers', async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const w = await world()
    const batch = await r.batchWith([{ segment: 'student', body: w.student }])
    await sql`ALTER TABLE audit_entry RENAME TO audit_entry_away`.execute(db)
    try {
      const read = await r.request('GET', r.batchPath(batch, `/student/${uidOf(w.student)}`))
      assert.equal(read.status, 503, read.text)
      assert.equal(read.json.type, '/problems/service-unavailable')
      assert.ok(!read.text.includes(w.student.familyName), 'the record is not sent')
      // The upload's entry is written by the upload's own statement (issue 30): no entry, no change.
      const upload = await r.request('POST', r.batchPath(batch, '/student'), { ...w.student, familyName: 'Changed' })
      assert.ok(upload.status >= 500, `the upload is refused: ${upload.status} ${upload.text}`)
      // Creating a batch writes its entry after it commits: its answer stands.
      const created = await r.request('POST', `${V1}/NSW/transaction-batch`)
      assert.equal(created.status, 201, 'the change is committed and says so')
    } finally {
      await sql`ALTER TABLE audit_entry_away RENAME TO audit_entry`.execute(db)
    }
    const after = await r.request('GET', r.batchPath(batch, `/student/${uidOf(w.student)}`))
    assert.equal(after.status, 200)
    assert.equal(after.json.familyName, w.student.familyName, 'the refused upload changed nothing')
  })

  it("each day's chains verify; an edited entry and a removed entry are named with their lane", async () => {
    // Each day's entries written on one connection: one lane, numbered 1, 2, ...
    const day = '2001-02-03'
    const lane = await onOneConnection(db, async (c) => {
      let written: { lane: number } | undefined
      for (let n = 0; n < 5; n++)
        written = await recordAudit(c, input({ recordId: `0000000${n}-0000-4000-8000-000000000000` }), noonOf(day, n))
      return written!.lane
    })
    assert.deepEqual(
      (await verifyAudit(db, day, day)).map((d) => [d.day, d.entries, d.lanes, d.broken]),
      [[day, 5, 1, undefined]],
    )
    await tamper(
      db,
      sql`UPDATE audit_entry SET actor_id = 'someone-else' WHERE day = ${day}::date AND lane = ${lane} AND seq = 3`,
    )
    const edited = (await verifyAudit(db, day, day))[0]!
    assert.deepEqual([edited.broken?.lane, edited.broken?.seq, edited.broken?.problem], [lane, 3, 'edited'])

    const other = '2001-02-04'
    await onOneConnection(db, async (c) => {
      for (let n = 0; n < 4; n++) await recordAudit(c, input(), noonOf(other, n))
    })
    await tamper(db, sql`DELETE FROM audit_entry WHERE day = ${other}::date AND seq = 2`)
    const removed = (await verifyAudit(db, other, other))[0]!
    assert.equal(removed.broken?.seq, 2)
    assert.equal(removed.broken?.problem, 'missing')

    const last = '2001-02-05'
    await onOneConnection(db, async (c) => {
      for (let n = 0; n < 3; n++) await recordAudit(c, input(), noonOf(last, n))
    })
    await tamper(db, sql`DELETE FROM audit_entry WHERE day = ${last}::date AND seq = 3`)
    const lastRemoved = (await verifyAudit(db, last, last))[0]!
    assert.equal(lastRemoved.broken?.seq, 3, "a removed last entry is seen against the lane's head")

    // A lane's removed first entry: each lane chains from its own fixed seed.
    const first = '2001-02-06'
    await onOneConnection(db, async (c) => {
      for (let n = 0; n < 2; n++) await recordAudit(c, input(), noonOf(first, n))
    })
    await tamper(db, sql`DELETE FROM audit_entry WHERE day = ${first}::date AND seq = 1`)
    const firstRemoved = (await verifyAudit(db, first, first))[0]!
    assert.deepEqual([firstRemoved.broken?.seq, firstRemoved.broken?.problem], [1, 'missing'])
  })

  it('a day of several lanes verifies lane by lane, and tampering in any lane is named with that lane', async () => {
    // Lanes written as several connections would (the lane is the connection's, audit_lane()): here the
    // heads and entries of lanes 0, 3 and 15 of one day made the way the SQL makes them, by the writer
    // of each lane chaining in JS with the same hash (recordAuditEntries' path), then checked.
    const day = '2001-02-10'
    const { chainHash, canonicalText: text, laneSeed } = await import('../src/modules/audit/audit-chain.ts')
    for (const lane of [0, 3, 15]) {
      let prev = laneSeed(day, lane)
      for (let seq = 1; seq <= 3; seq++) {
        const entry = { ...input({ requestId: `l${lane}-${seq}` }), id: randomUUID(), at: noonOf(day, seq), day }
        const hash = chainHash(prev, seq, text(entry))
        await sql`INSERT INTO audit_entry (day, lane, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                    record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
                  VALUES (${day}::date, ${lane}, ${seq}, ${entry.id}::uuid, ${entry.at}::timestamptz, ${entry.actorKind},
                    ${entry.actorId}, ${entry.actorRole}, ${entry.sourceAddress}, ${entry.action}, ${entry.recordType},
                    ${entry.recordId}, ${entry.batchToken}, ${entry.rto}, ${entry.outcome}, ${entry.status},
                    ${entry.requestId}, ${prev}, ${hash})`.execute(db)
        if (seq === 1)
          await sql`INSERT INTO audit_day (day, lane, last_seq, last_hash, prev_hash)
                    VALUES (${day}::date, ${lane}, 1, ${hash}, ${prev})`.execute(db)
        else
          await sql`UPDATE audit_day SET last_seq = ${seq}, last_hash = ${hash}, prev_hash = ${prev}
                     WHERE day = ${day}::date AND lane = ${lane}`.execute(db)
        prev = hash
      }
    }
    // The SQL's seed of a lane is the one the verification expects.
    const seeds = await sql<{ lane: number; seed: string }>`
      SELECT lane, audit_lane_seed(${laneSeed(day, 0)}, lane::smallint) AS seed FROM (VALUES (0), (3), (15)) AS l (lane)`.execute(
      db,
    )
    for (const { lane, seed } of seeds.rows) assert.equal(seed, laneSeed(day, lane), `lane ${lane}'s seed`)
    const intact = (await verifyAudit(db, day, day))[0]!
    assert.deepEqual([intact.entries, intact.lanes, intact.broken], [9, 3, undefined])

    // An entry moved from lane 15 into lane 3 (renumbered to follow lane 3's last) breaks both.
    await tamper(db, sql`UPDATE audit_entry SET lane = 3, seq = 4 WHERE day = ${day}::date AND lane = 15 AND seq = 3`)
    const moved = (await verifyAudit(db, day, day))[0]!
    assert.deepEqual(
      moved.brokenLanes.map((b) => [b.lane, b.seq, b.problem]),
      [
        [3, 4, 'out-of-chain'],
        [15, 3, 'missing'],
      ],
    )
    assert.equal(moved.broken?.lane, 3, 'the first broken lane is the one named')
    await tamper(db, sql`UPDATE audit_entry SET lane = 15, seq = 3 WHERE day = ${day}::date AND lane = 3 AND seq = 4`)
    assert.equal((await verifyAudit(db, day, day))[0]!.broken, undefined, 'put back, it verifies again')

    await tamper(
      db,
      sql`UPDATE audit_entry SET record_id = 'changed' WHERE day = ${day}::date AND lane = 15 AND seq = 2`,
    )
    const edited = (await verifyAudit(db, day, day))[0]!
    assert.deepEqual([edited.broken?.lane, edited.broken?.seq, edited.broken?.problem], [15, 2, 'edited'])
  })

  it('the table refuses UPDATE, DELETE and TRUNCATE by the application', async () => {
    const day = '2001-03-01'
    await recordAudit(db, input(), noonOf(day))
    for (const statement of [
      sql`UPDATE audit_entry SET actor_id = 'x' WHERE day = ${day}::date`,
      sql`DELETE FROM audit_entry WHERE day = ${day}::date`,
      sql`TRUNCATE audit_entry`,
      sql`UPDATE audit_day SET last_hash = 'x' WHERE day = ${day}::date`,
      sql`DELETE FROM audit_day WHERE day = ${day}::date`,
    ])
      await assert.rejects(statement.execute(db), /audit_entry is append-only|audit_day/)
    assert.equal((await verifyAudit(db, day, day))[0]?.broken, undefined)
  })

  it('concurrent writers make gap-free chains, one per lane, every entry verified', async () => {
    const day = '2001-04-01'
    const written = await Promise.all(
      Array.from({ length: 60 }, (_, n) => recordAudit(db, input({ requestId: `r${n}` }), noonOf(day, n % 7))),
    )
    const lanes = numbersByLane(written)
    for (const [lane, numbers] of lanes)
      assert.deepEqual(
        numbers,
        Array.from({ length: numbers.length }, (_, n) => n + 1),
        `lane ${lane}: each number taken once`,
      )
    // On PostgreSQL the pool's connections write in several lanes; the embedded database has one.
    if (onPostgres) assert.ok(lanes.size > 1, `several lanes: ${[...lanes.keys()]}`)
    else assert.equal(lanes.size, 1)
    const [verified] = await verifyAudit(db, day, day)
    assert.equal(verified?.broken, undefined, verified?.broken?.detail)
    assert.deepEqual([verified?.entries, verified?.lanes], [60, lanes.size])
  })

  it("the change's own statement (audit_append) starts a day's lanes and moves them, several at once: gap-free chains that verify", async () => {
    // A day no other test writes: each lane's first entry makes its head (migration 0048: the head is
    // moved first and made only when the day has none on that lane), the later ones move it.
    const day = '2001-05-01'
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        sql<{
          seq: string
        }>`SELECT ${auditInStatement(input({ requestId: `a${n}` }), noonOf(day, n))(sql`201`)}::text AS seq`
          .execute(db)
          .then((result) => Number(result.rows[0]!.seq)),
      ),
    )
    assert.ok(
      appended.every((seq) => seq >= 1),
      `every call answered its number: ${appended}`,
    )
    const rows = await sql<{ lane: number; n: string }>`
      SELECT lane, seq::text AS n FROM audit_entry WHERE day = ${day}::date ORDER BY lane, seq`.execute(db)
    const byLane = new Map<number, number[]>()
    for (const row of rows.rows) byLane.set(row.lane, [...(byLane.get(row.lane) ?? []), Number(row.n)])
    for (const [lane, numbers] of byLane)
      assert.deepEqual(
        numbers,
        Array.from({ length: numbers.length }, (_, n) => n + 1),
        `lane ${lane}: each number taken once`,
      )
    const [verified] = await verifyAudit(db, day, day)
    assert.equal(verified?.broken, undefined, verified?.broken?.detail)
    assert.deepEqual([verified?.entries, verified?.lanes], [40, byLane.size])
  })

  it('batched and single writers, several at once, still make one valid chain (group commit)', async () => {
    const day = '2001-04-02'
    const batches = Array.from({ length: 6 }, (_, b) =>
      recordAuditEntries(
        db,
        Array.from({ length: 10 }, (_, n) => ({ input: input({ requestId: `b${b}-${n}` }), at: noonOf(day, n) })),
      ),
    )
    const singles = Array.from({ length: 20 }, (_, n) => recordAudit(db, input({ requestId: `s${n}` }), noonOf(day, n)))
    const written = (await Promise.all([...batches, ...singles])).flat()
    for (const [lane, numbers] of numbersByLane(written))
      assert.deepEqual(
        numbers,
        Array.from({ length: numbers.length }, (_, n) => n + 1),
        `lane ${lane}`,
      )
    const [verified] = await verifyAudit(db, day, day)
    assert.equal(verified?.broken, undefined, verified?.broken?.detail)
    assert.equal(verified?.entries, 80)

    // Two writers (as two processes would have), each gathering what arrives while it writes.
    const today = new Date().toISOString().slice(0, 10)
    const [one, two] = [createAuditWriter(db), createAuditWriter(db, { maxBatch: 7 })]
    const before = (await verifyAudit(db, today, today))[0]?.entries ?? 0
    await Promise.all(
      Array.from({ length: 80 }, (_, n) => (n % 2 === 0 ? one : two).write(input({ requestId: `w${n}` }))),
    )
    const [now] = await verifyAudit(db, today, today)
    assert.equal(now?.broken, undefined, now?.broken?.detail)
    assert.ok((now?.entries ?? 0) >= before + 80)
  })

  it("uploads write their entry in their own statement: one entry each with the status answered, in the day's chains beside the writer's", async () => {
    const rto = await newRto(t)
    const r = rto.reporter
    const w = await world()
    const batch = await r.newBatch()
    const today = new Date().toISOString().slice(0, 10)
    const writer = createAuditWriter(db)
    const uids = Array.from({ length: 20 }, () => randomUUID())
    // 20 new Students and, at the same time, the same 20 again (each 201 or 200 by which came first),
    // with 20 entries through the group-commit writer: every number of each lane taken once.
    const answers = await Promise.all([
      ...[...uids, ...uids].map((uid) =>
        r.request('POST', r.batchPath(batch, '/student'), { ...w.student, studentUID: uid }),
      ),
      ...Array.from({ length: 20 }, (_, n) => writer.write(input({ requestId: `beside-${n}` }))),
    ])
    const statuses = answers.slice(0, 40).map((a) => (a as { status: number }).status)
    assert.equal(statuses.filter((s) => s === 201).length, 20, JSON.stringify(statuses))
    assert.equal(statuses.filter((s) => s === 200).length, 20, JSON.stringify(statuses))
    const entries = (await entriesOf(db, rto.rto)).filter((e) => e.action === 'record.upload' && e.batchToken === batch)
    assert.equal(entries.length, 40, 'one entry per upload, none written twice')
    for (const uid of uids) {
      const mine = entries.filter((e) => e.recordId === uid)
      assert.deepEqual(mine.map((e) => e.status).sort(), [200, 201], `${uid}: created once, replaced once`)
      assert.ok(mine.every((e) => e.outcome === 'success' && e.actorId === rto.clientId && e.recordType === 'Student'))
    }
    const [verified] = await verifyAudit(db, today, today)
    assert.equal(verified?.broken, undefined, verified?.broken?.detail)
    // A refused upload (no such batch) is still recorded, after its answer.
    const refused = await r.request('POST', r.batchPath('no-such-batch', '/student'), w.student)
    assert.equal(refused.status, 404)
    const refusedEntries = (await entriesOf(db, rto.rto)).filter((e) => e.batchToken === 'no-such-batch')
    assert.deepEqual(
      refusedEntries.map((e) => [e.action, e.outcome, e.status]),
      [['record.upload', 'refused', 404]],
    )
  })

  it('the canonical text around the status, with the status the statement says, is the canonical text', () => {
    const entry = { ...input({ requestId: null, status: null }), id: randomUUID(), at: new Date(), day: '2001-05-01' }
    for (const status of [200, 201, 404]) {
      const { head, tail } = canonicalAroundStatus(entry)
      assert.equal(`${head}${status}${tail}`, canonicalText({ ...entry, status }))
    }
  })

  it('retention removes whole days only, and the days kept still verify', async () => {
    const now = new Date()
    const dayAgo = (n: number) => new Date(now.getTime() - n * 86_400_000).toISOString().slice(0, 10)
    // Kept 3 days: today, yesterday and the day before stay; the days before that go, whole.
    for (const n of [5, 4, 3, 2, 1]) for (let i = 0; i < 3; i++) await recordAudit(db, input(), noonOf(dayAgo(n), i))
    const job = housekeepingJob(db, { auditRetentionDays: 3 })
    await job.handle({ retentionDays: 90 }, { id: crypto.randomUUID() } as never)
    const days = await verifyAudit(db, dayAgo(6), dayAgo(1))
    assert.deepEqual(
      days.map((d) => [d.day, d.entries, d.broken]),
      [
        [dayAgo(2), 3, undefined],
        [dayAgo(1), 3, undefined],
      ],
    )
  })
})

/** Changes the trail as someone with the database's owner rights would: its triggers switched off. */
async function tamper(db: Db, statement: ReturnType<typeof sql>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`ALTER TABLE audit_entry DISABLE TRIGGER audit_entry_append_only`.execute(connection)
    try {
      await statement.execute(connection)
    } finally {
      await sql`ALTER TABLE audit_entry ENABLE TRIGGER audit_entry_append_only`.execute(connection)
    }
  })
}

const SEGMENT_TYPES: Record<string, string> = {
  student: 'Student',
  deliverylocation: 'DeliveryLocation',
  subject: 'Subject',
  subjectoffering: 'SubjectOffering',
  subjectenrolment: 'SubjectEnrolment',
  program: 'Program',
  programoffering: 'ProgramOffering',
  programenrolment: 'ProgramEnrolment',
}
const typeOfSegment = (segment: string) => SEGMENT_TYPES[segment]!

describe('npm run audit:verify', () => {
  // A bound of its own above the runner's 120 s per test: on the embedded database each of the four CLI
  // commands is a process that starts PGlite on the data directory (a compilation of PostgreSQL's parser
  // each), 111 to 116 s together on a machine at load 20, and the test ran past 120 s in CI. A bound, not a
  // timing: nothing here is measured.
  it("exits 0 on intact days, and 1 naming the first broken entry of a tampered day; the CLI's client changes are entries", {
    timeout: 360_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vetrs-audit-'))
    const database = await createTestDatabase(onPostgres ? 'memory://' : join(dir, 'data'))
    try {
      const service = await startTestService({ database })
      const day = '2002-01-02'
      try {
        const sdb = service.service.database.db
        await onOneConnection(sdb, async (c) => {
          for (let n = 0; n < 4; n++) await recordAudit(c, input(), noonOf(day, n))
        })
        await recordAudit(sdb, input(), noonOf('2002-01-03'))
        await tamper(sdb, sql`UPDATE audit_entry SET record_id = 'changed' WHERE day = ${day}::date AND seq = 2`)
      } finally {
        await service.close()
      }
      const env = { ...process.env, ...database.env, LOG_LEVEL: 'silent' }
      const verify = (from: string, to: string) =>
        run(process.execPath, ['src/start.mjs', 'src/cli/main.ts', 'audit', 'verify', '--from', from, '--to', to], {
          env,
        })
      const intact = await verify('2002-01-03', '2002-01-03')
      assert.match(intact.stdout, /2002-01-03: 1 entries in 1 lane, chains intact/)
      const broken = await verify('2002-01-01', '2002-01-03').then(
        () => assert.fail('verify exits non-zero on a tampered day'),
        (error: { code: number; stdout: string }) => error,
      )
      assert.equal(broken.code, 1)
      assert.match(broken.stdout, /2002-01-02: BROKEN in lane \d+ at entry #2 \(id [0-9a-f-]{36}\)/)
      assert.match(broken.stdout, /2002-01-03: 1 entries in 1 lane, chains intact/)
      // The CLI's client changes are entries too, written in the change's transaction.
      await run(
        process.execPath,
        ['src/start.mjs', 'src/cli/main.ts', 'clients', 'add', 'cli-audited', '--rto', '70001', '--scopes', 'vet:read'],
        { env },
      )
      await run(process.execPath, ['src/start.mjs', 'src/cli/main.ts', 'clients', 'disable', 'cli-audited'], { env })
      const handle = await openDatabase(loadConfig(env, { signsTokens: false }).database)
      try {
        const entries = (await searchAudit(handle.db, { recordId: 'cli-audited' })).entries.reverse()
        assert.deepEqual(
          entries.map((e) => [e.action, e.actorKind, e.rto, e.recordType]),
          [
            ['client.register', 'operator', '70001', 'api-client'],
            ['client.disable', 'operator', '70001', 'api-client'],
          ],
        )
        assert.match(entries[0]!.actorId, /^cli/)
      } finally {
        await handle.close()
      }
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('audit lanes on PostgreSQL', {
  skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE=postgres): the embedded database has one connection',
}, () => {
  it("two connections' open transactions that each wrote an entry do not wait for each other", async () => {
    const database = await createTestDatabase()
    const env = { ...process.env, ...database.env, DATABASE_POOL_SIZE: '1', LOG_LEVEL: 'silent' }
    const handles: Awaited<ReturnType<typeof openDatabase>>[] = []
    /** A handle of one connection, and that connection's lane. */
    const connect = async () => {
      const handle = await openDatabase(loadConfig(env, { signsTokens: false }).database)
      // A database of its own, migrated by the first connection.
      if (handles.push(handle) === 1) await migrateToLatest(handle.db)
      const { lane } = (await sql<{ lane: number }>`SELECT audit_lane() AS lane`.execute(handle.db)).rows[0]!
      return { db: handle.db, lane: Number(lane) }
    }
    try {
      const one = await connect()
      // Two pids may share a lane (pid % 16): take another connection until the lanes differ.
      let two = await connect()
      for (let n = 0; n < 10 && two.lane === one.lane; n++) two = await connect()
      assert.notEqual(two.lane, one.lane, 'two connections in different lanes')
      // Were connection 2 to wait for connection 1's lane, it would fail here instead of hanging.
      await sql`SET lock_timeout = '30s'`.execute(two.db)
      const day = new Date().toISOString().slice(0, 10)
      // The lane's head exists (committed), so the open transaction below moves it, as on any busy day.
      await recordAudit(one.db, input({ requestId: 'one-before' }))
      await one.db.transaction().execute(async (tx) => {
        const mine = await recordAudit(tx, input({ requestId: 'one-open' }))
        assert.equal(mine.lane, one.lane)
        // Connection 1 holds its lane's head until it commits: that is what every writer used to queue on.
        await assert.rejects(
          sql`SELECT 1 FROM audit_day WHERE day = ${day}::date AND lane = ${one.lane} FOR UPDATE NOWAIT`.execute(
            two.db,
          ),
          /could not obtain lock/,
        )
        // Meanwhile connection 2 writes (and commits) entries through each path: the one-statement
        // insert, the upload's statement (audit_append) and the group commit's transaction.
        const other = await recordAudit(two.db, input({ requestId: 'two-while-one-open' }))
        assert.equal(other.lane, two.lane)
        const inStatement = auditInStatement({ ...input(), requestId: 'two-in-statement' })
        await sql`SELECT ${inStatement(sql<number>`201`)}`.execute(two.db)
        const batch = await recordAuditEntries(two.db, [
          { input: input({ requestId: 'two-batch-1' }), at: new Date() },
          { input: input({ requestId: 'two-batch-2' }), at: new Date() },
        ])
        assert.ok(batch.every((e) => e.lane === two.lane))
        const committed = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM audit_entry WHERE request_id LIKE 'two-%'`.execute(two.db)
        assert.equal(committed.rows[0]!.n, 4, "connection 2's entries committed while connection 1 is open")
      })
      const [verified] = await verifyAudit(one.db, day, day)
      assert.equal(verified?.broken, undefined, verified?.broken?.detail)
      assert.deepEqual([verified?.entries, verified?.lanes], [6, 2])
    } finally {
      for (const handle of handles) await handle.close()
      await database.drop()
    }
  })
})
