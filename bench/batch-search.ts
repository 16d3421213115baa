// The console's batch search at scale (issue 32, item 1: batches found by a record they hold): a fresh
// PostgreSQL database (DATABASE_URL's server), migrated, with BENCH_RECORDS (1,000,000) batch records
// over 100 RTOs in 20 batches each (six in ten students with a client identifier, a USI and names from
// a pool of 2,000 family and 500 given names; the rest enrolments, which have no search keys), inserted
// straight into batches' tables in set-based statements, then ANALYZE. Times batches' findBatches
// (what the batch list calls: the count and the page of 20) sequentially, BENCH_REQUESTS (200) times,
// rotating through a client identifier, a USI, a family name and a given and family name, of random
// RTOs. Prints p50 and p99 (ms), the insert time with the index in place, and the plan of one search.
// BENCH_INDEX_AFTER=1 loads without the index and builds it afterwards (both timed): the index's cost
// on upload is the difference between the two loads.
import pg from 'pg'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type { Database } from '../src/platform/db/schema.ts'
import type { Db } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { findBatches } from '../src/modules/batches/index.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const RTOS = 100
const BATCHES_PER_RTO = 20
const INDEX_AFTER = process.env.BENCH_INDEX_AFTER === '1'
const url = process.env.DATABASE_URL
if (!url) {
  console.log('batch search bench: skipped (set DATABASE_URL to a PostgreSQL server)')
  process.exit(0)
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

await withFreshPostgres(url, async (databaseUrl) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  try {
    await migrateToLatest(db)
    await sql`
      INSERT INTO transaction_batch (rto_id, transaction_batch_token, jurisdiction, created_by_client, created_at)
      SELECT 'R' || r, 'B' || r || '-' || b, 'NSW', 'bench', now() - ((r * ${BATCHES_PER_RTO} + b) || ' minutes')::interval
        FROM generate_series(0, ${RTOS - 1}) AS r, generate_series(0, ${BATCHES_PER_RTO - 1}) AS b`.execute(db)
    if (INDEX_AFTER) await sql`DROP INDEX batch_record_search`.execute(db)
    const started = Date.now()
    const chunk = 100_000
    for (let from = 1; from <= RECORDS; from += chunk) {
      const to = Math.min(RECORDS, from + chunk - 1)
      await sql`
        INSERT INTO batch_record (rto_id, transaction_batch_token, resource_type, resource_uid, body, uploaded_by_client)
        SELECT 'R' || (i % ${RTOS}), 'B' || (i % ${RTOS}) || '-' || ((i / ${RTOS}) % ${BATCHES_PER_RTO}),
               CASE WHEN i % 10 < 6 THEN 'Student' ELSE 'SubjectEnrolment' END, md5(i::text)::uuid,
               CASE WHEN i % 10 < 6 THEN jsonb_build_object(
                 'clientIdentifier', 'C' || i, 'uniqueStudentIdentifier', 'U' || lpad(i::text, 9, '0'),
                 'familyName', 'Family' || (i % 2000), 'firstGivenName', 'Given' || (i % 500),
                 'dateOfBirth', '2000-01-01', 'emailAddressPrimary', 'someone' || i || '@example.com')
               ELSE jsonb_build_object('subjectEnrolmentUID', md5(i::text)::uuid, 'enrolmentStatus', 'Active') END,
               'bench'
          FROM generate_series(${from}::int, ${to}::int) AS i`.execute(db)
      console.log(`  ${to.toLocaleString('en-AU')} batch records (${Math.round((Date.now() - started) / 1000)} s)`)
    }
    console.log(
      `  loaded in ${((Date.now() - started) / 1000).toFixed(1)} s ${INDEX_AFTER ? 'without' : 'with'} the search index`,
    )
    if (INDEX_AFTER) {
      const building = Date.now()
      // The migration's own statement, so the index is the one that ships (its other part, the
      // activity table, is made again, empty).
      const { up } = await import('../src/platform/db/migrations/0031_reported_activity_and_batch_search.ts')
      await sql`DROP TABLE reported_activity`.execute(db)
      await up(db)
      console.log(`  search index built in ${((Date.now() - building) / 1000).toFixed(1)} s`)
    }
    await sql`ANALYZE batch_record`.execute(db)
    await sql`ANALYZE transaction_batch`.execute(db)

    const studentNumber = () => {
      for (;;) {
        const i = 1 + Math.floor(Math.random() * RECORDS)
        if (i % 10 < 6) return i
      }
    }
    const queries = [
      (i: number) => [`C${i}`],
      (i: number) => [`u${String(i).padStart(9, '0')}`],
      (i: number) => [`family${i % 2000}`],
      (i: number) => [`Given${i % 500}`, `Family${i % 2000}`],
    ]
    const times: number[] = []
    let found = 0
    for (let n = 0; n < REQUESTS; n++) {
      const i = studentNumber()
      const actor = { clientId: 'bench', rto: `R${i % RTOS}`, scopes: new Set<string>() }
      const t0 = performance.now()
      const page = await findBatches(
        db as unknown as Db,
        actor,
        { holding: queries[n % queries.length]!(i) },
        {
          pageNumber: 1,
          pageSize: 20,
        },
      )
      times.push(performance.now() - t0)
      found += page.numberOfResults
      if (page.numberOfResults === 0) throw new Error(`no batch found for record ${i}`)
    }
    times.sort((a, b) => a - b)
    const plan = await sql<{ 'QUERY PLAN': string }>`
      EXPLAIN SELECT * FROM transaction_batch WHERE rto_id = 'R7' AND transaction_batch_token IN (
        SELECT DISTINCT transaction_batch_token FROM batch_record WHERE ARRAY[
        rto_id || ':' || lower(body->>'clientIdentifier'), rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
        rto_id || ':' || lower(body->>'familyName'), rto_id || ':' || lower(body->>'firstGivenName'),
        rto_id || ':' || lower(body->>'subjectIdentifier'), rto_id || ':' || lower(body->>'programIdentifier'),
        rto_id || ':' || lower(body->>'deliveryLocationIdentifier')] @> ARRAY['R7:family7']
        AND resource_type IN ('Student', 'Subject', 'Program', 'DeliveryLocation'))
      ORDER BY created_at DESC, transaction_batch_token LIMIT 20`.execute(db)
    console.log(
      `batch search, ${RECORDS.toLocaleString('en-AU')} batch records in ${RTOS * BATCHES_PER_RTO} batches of ${RTOS} RTOs, ${REQUESTS} searches:`,
    )
    console.log(
      `  p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, ${(found / REQUESTS).toFixed(1)} batches a search`,
    )
    console.log(plan.rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n'))
  } finally {
    await db.destroy()
  }
})
