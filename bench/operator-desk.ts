// The operator's desk at national scale (issue 32 item 8, issue 33): a fresh PostgreSQL database
// (DATABASE_URL's server), migrated, with BENCH_RTOS (4,000) RTOs, each with an API client and
// submission marks under NSW and VIC for the eight periods 202501 to 202604 (holdings' table, as
// submits leave it: 64,000 rows), a tenth of them with an extension and two periods with a set due
// date, inserted straight into the owners' tables, then ANALYZE. Times, sequentially, BENCH_REQUESTS
// (100) times each: the All RTOs list (first page, and a search), the calendar of a jurisdiction, the
// collection at a glance's due dates and declarations (declarations.periodAcrossRtos) and everything the
// collection page reads for its period and progress chart (console's collectionOverPeriods), then the
// due-date notices job's first run (which records every overdue notice) and a rerun (which adds none).
// Prints p50 and p99 (ms).
import pg from 'pg'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type { Database } from '../src/platform/db/schema.ts'
import type { Db } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { calendarOf, periodAcrossRtos, recordDueNotices } from '../src/modules/declarations/index.ts'
import { collectionOverPeriods, rtoDirectory } from '../src/modules/console/operator.service.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RTOS = Number(process.env.BENCH_RTOS ?? 4000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100)
const url = process.env.DATABASE_URL
if (!url) {
  console.log('operator desk bench: skipped (set DATABASE_URL to a PostgreSQL server)')
  process.exit(0)
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

async function timed(name: string, run: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 5; i++) await run()
  const times: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now()
    await run()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  console.log(
    `${name.padEnd(48)} p50 ${percentile(times, 50).toFixed(1)} ms  p99 ${percentile(times, 99).toFixed(1)} ms`,
  )
}

await withFreshPostgres(url, async (databaseUrl) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) as unknown as Db
  try {
    await migrateToLatest(db)
    const periods = [202504, 202503, 202502, 202501, 202404, 202403, 202402, 202401].map((p) => p + 100) // 202604 back to 202501
    await sql`
      INSERT INTO api_client (client_id, rto_id, secret_hash, scopes)
      SELECT 'sms-' || i, (10000 + i)::text, 'x', ARRAY['vet:report', 'vet:read']
        FROM generate_series(1, ${RTOS}::int) AS i`.execute(db)
    await sql`
      INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
      SELECT (10000 + i)::text, j, p, now() - (i || ' minutes')::interval, i
        FROM generate_series(1, ${RTOS}::int) AS i, unnest(ARRAY['NSW', 'VIC']) AS j, unnest(${periods}::int[]) AS p`.execute(
      db,
    )
    // The kept latest submission per RTO and jurisdiction, as submits keep it (migration 0035).
    await sql`
      INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
      SELECT rto_id, jurisdiction, max(last_submitted_at) FROM reporting_period_submission GROUP BY 1, 2`.execute(db)
    await sql`
      INSERT INTO declaration_extension (rto_id, jurisdiction, reporting_period, due_date, reason, granted_by)
      SELECT (10000 + i)::text, 'NSW', 202604, DATE '2027-03-31', 'bench', 'bench'
        FROM generate_series(1, ${RTOS}::int, 10) AS i`.execute(db)
    await sql`
      INSERT INTO collection_due_date (jurisdiction, reporting_period, due_date, reason, set_by)
      VALUES ('NSW', 202603, DATE '2026-11-30', 'bench', 'bench'), ('VIC', 202604, DATE '2027-02-28', 'bench', 'bench')`.execute(
      db,
    )
    await sql`ANALYZE`.execute(db)
    console.log(
      `operator desk: ${RTOS.toLocaleString('en-AU')} RTOs, ${(RTOS * 16).toLocaleString('en-AU')} submission marks`,
    )

    await timed('All RTOs, first page', () => rtoDirectory(db, '', 1))
    await timed('All RTOs, search "123"', () => rtoDirectory(db, '123', 1))
    await timed('calendar of NSW', () => calendarOf(db, 'NSW'))
    await timed('collection NSW 202604 (due dates, declarations)', () => periodAcrossRtos(db, 'NSW', 202604))
    // What the collection page reads: its period and the progress chart's six, with assessment statuses.
    await timed('collection page, 7 periods with statuses', () =>
      collectionOverPeriods(db, 'NSW', [202604, 202603, 202602, 202601, 202504, 202503, 202502]),
    )
    const t0 = performance.now()
    const first = await recordDueNotices(db, { dueSoonDays: 7, today: '2027-02-15' })
    const firstMs = performance.now() - t0
    const t1 = performance.now()
    const again = await recordDueNotices(db, { dueSoonDays: 7, today: '2027-02-15' })
    const againMs = performance.now() - t1
    console.log(
      `due-date notices, first run: ${first.overdue.toLocaleString('en-AU')} overdue + ${first.dueSoon} due soon in ${(firstMs / 1000).toFixed(1)} s; rerun: ${again.overdue + again.dueSoon} new in ${(againMs / 1000).toFixed(1)} s`,
    )
  } finally {
    await (db as unknown as Kysely<Database>).destroy()
  }
})
