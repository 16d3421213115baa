// Migration 0036 on a database that already holds batch records: it counts them once (inside its
// transaction, after creating the triggers), so batches uploaded before the upgrade have their kept
// counts and fingerprints right, and uploads after it keep them. A database migrated to 0035, given
// records, then migrated to the latest, on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { migrations } from '../src/platform/db/migrations/index.ts'
import { createTestDatabase, onPostgres, type TestDatabase } from './support/index.ts'

describe('migration 0036 counts the batch records already there', () => {
  let db: Kysely<any>
  let database: TestDatabase | undefined
  before(async () => {
    if (onPostgres) {
      database = await createTestDatabase('memory://', { empty: true })
      db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.env.DATABASE_URL, max: 2 }) }),
      })
    } else db = new Kysely<any>({ dialect: new PGliteDialect({ pglite: await PGlite.create() }) })
  })
  after(async () => {
    await db?.destroy()
    await database?.drop()
  })

  const kept = async () =>
    (
      await sql<{ token: string; type: string; n: string; s: string }>`
        SELECT transaction_batch_token AS token, resource_type AS type, sum(record_count)::text AS n,
               sum(change_seq_sum)::text AS s
          FROM batch_record_count GROUP BY 1, 2 HAVING sum(record_count) <> 0 ORDER BY 1, 2`.execute(db)
    ).rows
  const fresh = async () =>
    (
      await sql<{ token: string; type: string; n: string; s: string }>`
        SELECT transaction_batch_token AS token, resource_type AS type, count(*)::text AS n, sum(change_seq)::text AS s
          FROM batch_record GROUP BY 1, 2 ORDER BY 1, 2`.execute(db)
    ).rows

  it('after the upgrade the kept counts equal a fresh count, and uploads keep them so', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    const before = await migrator.migrateTo('0035_operator_reads_across_rtos')
    assert.equal(before.error, undefined)
    for (const token of ['older', 'old'])
      await sql`INSERT INTO transaction_batch (rto_id, transaction_batch_token, jurisdiction, created_by_client)
                VALUES ('90001', ${token}, 'NSW', 'test')`.execute(db)
    await sql`
      INSERT INTO batch_record (rto_id, transaction_batch_token, resource_type, resource_uid, body, uploaded_by_client)
      SELECT '90001', CASE WHEN i % 3 = 0 THEN 'older' ELSE 'old' END,
             CASE WHEN i % 2 = 0 THEN 'Student' ELSE 'SubjectEnrolment' END, md5(i::text)::uuid, '{}'::jsonb, 'test'
        FROM generate_series(1, 500) AS i`.execute(db)
    const fingerprintBefore = await sql<{ token: string; n: string; s: string }>`
      SELECT transaction_batch_token AS token, record_count::text AS n, change_seq_sum::text AS s
        FROM batch_fingerprint ORDER BY 1`.execute(db)

    const upgraded = await migrator.migrateToLatest()
    assert.equal(upgraded.error, undefined)
    assert.ok(upgraded.results?.some((r) => r.migrationName === '0036_batch_record_count'))
    assert.equal((await kept()).length, 4, 'two types in each of two batches')
    assert.deepEqual(await kept(), await fresh())
    const fingerprintAfter = await sql<{ token: string; n: string; s: string }>`
      SELECT transaction_batch_token AS token, record_count::text AS n, change_seq_sum::text AS s
        FROM batch_fingerprint ORDER BY 1`.execute(db)
    assert.deepEqual(fingerprintAfter.rows, fingerprintBefore.rows, 'the fingerprints read the same after the upgrade')

    // Uploads and deletes after the upgrade move the kept counts from there.
    await sql`SELECT upload_batch_record('90001', 'old', 'NSW', 'Student', md5('new')::uuid, NULL, false, '{}'::jsonb, 'test')`.execute(
      db,
    )
    await sql`DELETE FROM batch_record WHERE transaction_batch_token = 'older' AND resource_type = 'Student'`.execute(
      db,
    )
    assert.deepEqual(await kept(), await fresh())
  })
})
