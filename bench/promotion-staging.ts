// What a staged promotion could save the embedded database (issue 30): submit's promotion is one
// statement that writes every record of the batch into held_record, and on PGlite it holds the one
// connection for the whole of it. A staged promotion would write the new versions in slices beforehand
// and make them visible in one final statement; this bench measures, on the same batch and in
// alternating rounds, each inside a transaction that is rolled back:
//   promoteBatch            the statement as submit runs it (the reference);
//   insert, current         the same rows written plainly (no activity date, no reported_activity count);
//   insert, not current     the same, is_current false (what a slice would write: no entry in the
//                           current and search indexes);
//   insert without bodies   the same rows with an empty body: the per-row cost without the 0.9 KB body;
//   flip of staged rows     `UPDATE held_record SET is_current = true` over the rows of "insert, not
//                           current" written first in the same transaction (only the UPDATE is timed):
//                           the final statement of "written not current, then switched".
// A final statement that writes or rewrites every held row holds the connection as long as what it writes.
// On PGlite in memory, or with DATABASE_URL in a fresh PostgreSQL database dropped afterwards.
//   BENCH_RECORDS=20000 BENCH_ROUNDS=3 node bench/promotion-staging.ts
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { readFileSync } from 'node:fs'
import type { Database } from '../src/platform/db/schema.ts'
import type { Executor } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import * as holdings from '../src/modules/holdings/holdings.repo.ts'
import { firstSubmissionOf, loadBatch } from './batch-loader.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

class Rollback extends Error {}

async function measure(db: Kysely<Database>, where: string): Promise<void> {
  await migrateToLatest(db)
  const { token } = await loadBatch(db, RECORDS)
  const p = firstSubmissionOf(token)
  const columns = sql`rto_id, resource_type, resource_uid, submission_seq, is_current, state_in_submission, jurisdiction,
    transaction_batch_token, submitted_by_client, submitted_at, change_tracking_identifier, body`
  const insert = (current: boolean, body: 'body' | 'none') => (tx: Executor) =>
    sql`INSERT INTO held_record (${columns})
        SELECT b.rto_id, b.resource_type, b.resource_uid, 1, ${current}, 'In submission', ${p.jurisdiction},
               b.transaction_batch_token, ${p.clientId}, ${p.submittedAt}::timestamptz, b.change_tracking_identifier,
               ${body === 'body' ? sql`b.body` : sql`'{}'::jsonb`}
          FROM batch_content b WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${token}`.execute(tx)
  // Each returns the milliseconds of what it measures.
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    return performance.now() - started
  }
  const variants: [string, (tx: Executor) => Promise<number>][] = [
    ['promoteBatch', (tx) => timed(() => holdings.promoteBatch(tx, p))],
    ['insert, current', (tx) => timed(() => insert(true, 'body')(tx))],
    ['insert, not current', (tx) => timed(() => insert(false, 'body')(tx))],
    ['insert without bodies', (tx) => timed(() => insert(true, 'none')(tx))],
    [
      'flip of staged rows',
      async (tx) => {
        await insert(false, 'body')(tx)
        return timed(() =>
          sql`UPDATE held_record SET is_current = true WHERE rto_id = ${p.rto} AND submission_seq = 1`.execute(tx),
        )
      },
    ],
  ]
  const results = new Map<string, number[]>()
  console.log(`${RECORDS} records, ${where}, ${ROUNDS} rounds (ms; load average at each round's start)`)
  for (let round = 1; round <= ROUNDS; round++) {
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0]
    const line: string[] = []
    for (const [name, run] of variants) {
      let ms = 0
      try {
        await db.transaction().execute(async (tx) => {
          ms = await run(tx)
          throw new Rollback()
        })
      } catch (error) {
        if (!(error instanceof Rollback)) throw error
      }
      results.set(name, [...(results.get(name) ?? []), ms])
      line.push(`${name} ${ms.toFixed(0)}`)
    }
    console.log(`round ${round} (load ${load}): ${line.join(', ')}`)
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  for (const [name, values] of results) console.log(`  ${name}: median ${median(values).toFixed(0)} ms`)
}

const adminUrl = process.env.DATABASE_URL || undefined
if (adminUrl) {
  await withFreshPostgres(adminUrl, async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    try {
      await measure(db, 'PostgreSQL (a fresh database)')
    } finally {
      await db.destroy()
    }
  })
} else {
  const pglite = await PGlite.create(undefined, { parsers: { 1082: (v: string) => v } })
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  await measure(db, 'PGlite in memory')
  await db.destroy()
}
