// Migration 0042 (the audit trail's lanes) on a database that already holds audit entries: the days
// written as one chain become lane 0 of their day and verify unchanged, they keep their order on the
// console's pages (pos = their number), and entries written after the upgrade go on in the
// connection's lane, chained from that lane's own seed, shown after the older ones. A database
// migrated to 0041, given entries by its own audit_append (migration 0040), then migrated to the
// latest, on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { migrations } from '../src/platform/db/migrations/index.ts'
import { recordAudit, searchAudit, verifyAudit } from '../src/modules/audit/index.ts'
import { canonicalAroundStatus, daySeed } from '../src/modules/audit/audit-chain.ts'
import type { Db } from '../src/platform/db/database.ts'
import { createTestDatabase, onPostgres, type TestDatabase } from './support/index.ts'

describe('migration 0042 keeps the chains already written', () => {
  let db: Kysely<any>
  let database: TestDatabase | undefined
  before(async () => {
    if (onPostgres) {
      database = await createTestDatabase('memory://', { empty: true })
      // One connection: the entries after the upgrade are in one lane, whatever the pool.
      db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.env.DATABASE_URL, max: 1 }) }),
      })
    } else db = new Kysely<any>({ dialect: new PGliteDialect({ pglite: await PGlite.create() }) })
  })
  after(async () => {
    await db?.destroy()
    await database?.drop()
  })

  /** An entry written the way 0040's audit_append wrote it (one chain a day, no lane). */
  async function appendBefore(day: string, n: number): Promise<void> {
    const entry = {
      id: randomUUID(),
      at: new Date(Date.parse(`${day}T10:00:00.000Z`) + n),
      day,
      actorKind: 'system' as const,
      actorId: 'before-the-upgrade',
      actorRole: null,
      sourceAddress: null,
      action: 'record.upload' as const,
      recordType: 'Student',
      recordId: `record-${n}`,
      batchToken: null,
      rto: 'M1',
      outcome: 'success' as const,
      status: null,
      requestId: `before-${n}`,
    }
    const { head, tail } = canonicalAroundStatus(entry)
    await sql`SELECT audit_append(201, ${day}::date, ${daySeed(day)}, ${head}, ${tail}, ${entry.id}::uuid,
                ${entry.at}::timestamptz, ${entry.actorKind}, ${entry.actorId}, NULL, NULL, ${entry.action},
                ${entry.recordType}, ${entry.recordId}, NULL, ${entry.rto}, ${entry.outcome}, ${entry.requestId})`.execute(
      db,
    )
  }

  it('days written before are lane 0 and verify; entries after go on in a lane of their own, newest first', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    const before = await migrator.migrateTo('0041_run_result_anchors')
    assert.equal(before.error, undefined)
    const [older, day] = ['2003-03-02', '2003-03-03']
    for (let n = 0; n < 3; n++) await appendBefore(older, n)
    for (let n = 3; n < 8; n++) await appendBefore(day, n)

    const upgraded = await migrator.migrateToLatest()
    assert.equal(upgraded.error, undefined)
    const audit = db as unknown as Db
    const lanes = await sql<{ day: string; lane: number; seqs: string; pos: string }>`
      SELECT day::text AS day, lane, string_agg(seq::text, ',' ORDER BY seq) AS seqs,
             string_agg(pos::text, ',' ORDER BY seq) AS pos
        FROM audit_entry GROUP BY day, lane ORDER BY day, lane`.execute(db)
    assert.deepEqual(
      lanes.rows.map((r) => [r.day, Number(r.lane), r.seqs, r.pos]),
      [
        [older, 0, '1,2,3', '1,2,3'],
        [day, 0, '1,2,3,4,5', '1,2,3,4,5'],
      ],
    )
    assert.deepEqual(
      (await verifyAudit(audit, older, day)).map((d) => [d.day, d.entries, d.lanes, d.broken]),
      [
        [older, 3, 1, undefined],
        [day, 5, 1, undefined],
      ],
    )

    // After the upgrade, on this connection's lane: numbered from 1 in it, chained from its seed.
    const { lane } = (await sql<{ lane: number }>`SELECT audit_lane() AS lane`.execute(db)).rows[0]!
    const after = [
      await recordAudit(audit, { ...entryInput, requestId: 'after-0' }, new Date(`${day}T11:00:00.000Z`)),
      await recordAudit(audit, { ...entryInput, requestId: 'after-1' }, new Date(`${day}T11:00:01.000Z`)),
    ]
    const expected = Number(lane) === 0 ? [6, 7] : [1, 2]
    assert.deepEqual(
      after.map((a) => [a.lane, a.seq]),
      expected.map((seq) => [Number(lane), seq]),
    )
    const [verified] = await verifyAudit(audit, day, day)
    assert.equal(verified?.broken, undefined, verified?.broken?.detail)
    assert.deepEqual([verified?.entries, verified?.lanes], [7, Number(lane) === 0 ? 1 : 2])

    // The console's order: newest first, across lanes, the upgrade's entries after the older ones,
    // and paged by (day, position) without losing or repeating one.
    const seen: string[] = []
    let cursor: { day: string; pos: number } | undefined
    for (;;) {
      const page = await searchAudit(audit, { rto: 'M1' }, cursor, 3)
      seen.push(...page.entries.map((e) => e.requestId ?? ''))
      if (!page.next) break
      cursor = page.next
    }
    assert.deepEqual(seen, [
      'after-1',
      'after-0',
      'before-7',
      'before-6',
      'before-5',
      'before-4',
      'before-3',
      'before-2',
      'before-1',
      'before-0',
    ])
  })
})

const entryInput = {
  actorKind: 'system' as const,
  actorId: 'after-the-upgrade',
  actorRole: null,
  sourceAddress: null,
  action: 'record.upload' as const,
  recordType: 'Student',
  recordId: 'record-after',
  batchToken: null,
  rto: 'M1',
  outcome: 'success' as const,
  status: 201,
  requestId: null,
}
