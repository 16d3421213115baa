// The reconciliation indexing's longest statement on PostgreSQL taken apart (issue 30, the lag after a
// 100,000-record submission): the insert of a first submission's links into held_link, as
// indexSubmission runs it, against variants of it, each in a transaction rolled back, in turn, with
// `VACUUM held_link` between:
//   as is                 the statement (its links' targets fed into the affected set by RETURNING);
//   without RETURNING     the insert alone;
//   narrow source index   held_link_source_idx as (rto_id, source_uid) instead of
//                         (rto_id, source_type, source_uid, target_type), made in the transaction;
//   no source index       held_link_source_idx dropped in the transaction;
//   hash source index     held_link_source_idx as a hash index on source_uid, made in the transaction;
//   read and sorted       the links read from the batch and sorted, nothing inserted.
// In a fresh PostgreSQL database (dropped afterwards): BENCH_RECORDS (100,000) records loaded and
// promoted first; BENCH_ROUNDS (2) rounds. Prints each round's milliseconds with the load average.
//   BENCH_ROUNDS=3 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/link-insert.ts
import { sql, type RawBuilder } from 'kysely'
import { readFileSync } from 'node:fs'
import type { Executor } from '../src/platform/db/database.ts'
import { linksOf } from '../src/modules/reconciliation/reconciliation-index.repo.ts'
import { withPromotedBatch } from './promoted-batch.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const adminUrl = process.env.DATABASE_URL
if (!adminUrl) throw new Error('bench/link-insert.ts runs on PostgreSQL: give DATABASE_URL')

class Rollback extends Error {}

await withPromotedBatch(adminUrl, RECORDS, async (db, p) => {
  const token = p.token
  // The links of the batch, as indexSubmission selects and orders them.
  const links = sql`SELECT b.rto_id, b.resource_type, b.resource_uid, t.target_type, t.target_uid
        FROM batch_content b CROSS JOIN ${linksOf()}
       WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${token} AND NOT b.is_voided
       ORDER BY t.target_type COLLATE "C", t.target_uid, b.resource_type COLLATE "C", b.resource_uid`
  const insertLinks = sql`INSERT INTO held_link (rto_id, source_type, source_uid, target_type, target_uid) ${links}`
  const asIs = (tx: Executor) =>
    sql`WITH added AS (${insertLinks} RETURNING target_type, target_uid)
          INSERT INTO reconciliation_affected SELECT DISTINCT target_type, target_uid FROM added ON CONFLICT DO NOTHING`.execute(
      tx,
    )
  const run = (statement: RawBuilder<unknown>) => (tx: Executor) => statement.execute(tx)
  const variants: [string, string[], (tx: Executor) => Promise<unknown>][] = [
    ['as is', [], asIs],
    ['without RETURNING', [], run(insertLinks)],
    [
      'narrow source index',
      ['DROP INDEX held_link_source_idx', 'CREATE INDEX held_link_source_idx ON held_link (rto_id, source_uid)'],
      asIs,
    ],
    ['no source index', ['DROP INDEX held_link_source_idx'], asIs],
    [
      'hash source index',
      ['DROP INDEX held_link_source_idx', 'CREATE INDEX held_link_source_idx ON held_link USING hash (source_uid)'],
      asIs,
    ],
    ['read and sorted', [], run(sql`SELECT count(*) FROM (${links}) AS x`)],
  ]
  // BENCH_VARIANTS: a comma-separated subset of the names above (all by default).
  const only = process.env.BENCH_VARIANTS?.split(',').map((name) => name.trim())
  const chosen = only ? variants.filter(([name]) => only.includes(name)) : variants
  console.log(`${RECORDS} records, PostgreSQL (a fresh database), ${ROUNDS} rounds (ms; load average at each start)`)
  for (let round = 1; round <= ROUNDS; round++) {
    const line: string[] = []
    for (const [name, before, statement] of chosen) {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0]
      let ms = 0
      try {
        await db.transaction().execute(async (tx) => {
          // As indexSubmission sets them for this statement.
          await sql`SET LOCAL jit = off`.execute(tx)
          await sql`SET LOCAL random_page_cost = 1.1`.execute(tx)
          await sql`SET LOCAL work_mem = '64MB'`.execute(tx)
          await sql`CREATE TEMP TABLE reconciliation_affected (resource_type text, resource_uid uuid,
                      PRIMARY KEY (resource_type, resource_uid)) ON COMMIT DROP`.execute(tx)
          for (const setup of before) await sql.raw(setup).execute(tx)
          const started = performance.now()
          await statement(tx)
          ms = performance.now() - started
          throw new Rollback()
        })
      } catch (error) {
        if (!(error instanceof Rollback)) throw error
      }
      await sql`VACUUM held_link`.execute(db)
      line.push(`${name} ${ms.toFixed(0)} (${load})`)
    }
    console.log(`round ${round}: ${line.join(', ')}`)
  }
})
