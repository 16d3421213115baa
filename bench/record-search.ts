// The console's record search at scale (issue 32: "record search p99 at most 100 ms at 1M held
// records"): a fresh PostgreSQL database (DATABASE_URL's server), migrated, with BENCH_RECORDS
// (1,000,000) current held versions spread over 100 RTOs (six in ten students with names from a
// pool of 2,000 family and 500 given names, a client identifier and a USI; the rest enrolments,
// which have no search keys), inserted straight into holdings' table in set-based statements, then
// ANALYZE. Times holdings' searchHeldRecords (what the page calls) sequentially, BENCH_REQUESTS (200)
// times, rotating through a client identifier, a USI, a family name and a given and family name, of
// random RTOs. Prints p50 and p99 (ms) and the plan of one search.
import pg from 'pg'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type { Database } from '../src/platform/db/schema.ts'
import type { ReadDb } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { searchHeldRecords } from '../src/modules/holdings/index.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const RTOS = 100
const url = process.env.DATABASE_URL
if (!url) {
  console.log('record search bench: skipped (set DATABASE_URL to a PostgreSQL server)')
  process.exit(0)
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

await withFreshPostgres(url, async (databaseUrl) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  try {
    await migrateToLatest(db)
    const started = Date.now()
    const chunk = 100_000
    for (let from = 1; from <= RECORDS; from += chunk) {
      const to = Math.min(RECORDS, from + chunk - 1)
      await sql`
        INSERT INTO held_record (rto_id, resource_type, resource_uid, submission_seq, is_current, state_in_submission,
                                 jurisdiction, transaction_batch_token, submitted_by_client, submitted_at, body)
        SELECT 'R' || (i % ${RTOS}), CASE WHEN i % 10 < 6 THEN 'Student' ELSE 'SubjectEnrolment' END, md5(i::text)::uuid,
               i, true, 'In submission', 'NSW', 'bench', 'bench', now() - (i || ' seconds')::interval,
               CASE WHEN i % 10 < 6 THEN jsonb_build_object(
                 'clientIdentifier', 'C' || i, 'uniqueStudentIdentifier', 'U' || lpad(i::text, 9, '0'),
                 'familyName', 'Family' || (i % 2000), 'firstGivenName', 'Given' || (i % 500),
                 'dateOfBirth', '2000-01-01', 'emailAddressPrimary', 'someone' || i || '@example.com')
               ELSE jsonb_build_object('subjectEnrolmentUID', md5(i::text)::uuid, 'enrolmentStatus', 'Active') END
          FROM generate_series(${from}::int, ${to}::int) AS i`.execute(db)
      console.log(`  ${to.toLocaleString('en-AU')} held records (${Math.round((Date.now() - started) / 1000)} s)`)
    }
    await sql`ANALYZE held_record`.execute(db)

    // Students are the i with i % 10 < 6; RTO R<i % 100>.
    const studentNumber = () => {
      for (;;) {
        const i = 1 + Math.floor(Math.random() * RECORDS)
        if (i % 10 < 6) return i
      }
    }
    const queries = [
      (i: number) => `C${i}`,
      (i: number) => `u${String(i).padStart(9, '0')}`,
      (i: number) => `family${i % 2000}`,
      (i: number) => `Given${i % 500} Family${i % 2000}`,
    ]
    const times: number[] = []
    let found = 0
    for (let n = 0; n < REQUESTS; n++) {
      const i = studentNumber()
      const actor = { clientId: 'bench', rto: `R${i % RTOS}`, scopes: new Set<string>() }
      const t0 = performance.now()
      const results = await searchHeldRecords(db as unknown as ReadDb, actor, queries[n % queries.length]!(i), 50)
      times.push(performance.now() - t0)
      found += results.length
      if (results.length === 0) throw new Error(`nothing found for record ${i}`)
    }
    times.sort((a, b) => a - b)
    const plan = await sql<{ 'QUERY PLAN': string }>`
      EXPLAIN SELECT * FROM held_record WHERE is_current AND ARRAY[
        rto_id || ':' || lower(body->>'clientIdentifier'), rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
        rto_id || ':' || lower(body->>'familyName'), rto_id || ':' || lower(body->>'firstGivenName'),
        rto_id || ':' || lower(body->>'subjectIdentifier'), rto_id || ':' || lower(body->>'programIdentifier'),
        rto_id || ':' || lower(body->>'deliveryLocationIdentifier')] @> ARRAY['R7:family7'] ORDER BY submitted_at DESC, resource_type, resource_uid LIMIT 50`.execute(
      db,
    )
    console.log(
      `record search, ${RECORDS.toLocaleString('en-AU')} held records over ${RTOS} RTOs, ${REQUESTS} searches:`,
    )
    console.log(
      `  p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, ${(found / REQUESTS).toFixed(1)} results a search`,
    )
    console.log(plan.rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n'))
  } finally {
    await db.destroy()
  }
})
