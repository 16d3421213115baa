// What keeping a batch's record counts costs an upload (migration 0036: statement triggers on
// batch_record add a delta row per batch and type each writing statement touched). Uploads of ~2 KB
// Students through the upload function (upload_batch_record, the API's single-upload path), into ONE
// batch, from BENCH_CONCURRENCY (8) connections at once on PostgreSQL (the contention a counter per
// batch would bring) and from the one connection on PGlite, with the counting triggers enabled and
// disabled in alternating rounds (BENCH_ROUNDS, 6), BENCH_UPLOADS (2,000) new records then as many
// replacements per round. Prints the median wall time per upload of each mode (PostgreSQL; the
// database's CPU is another process) and the process's CPU time per upload (PGlite, where the database
// runs in the process). Also checks the kept counts against a fresh count at the end.
//   DATABASE_URL=postgres://... node bench/batch-record-count-cost.ts      (both databases)
import { randomUUID } from 'node:crypto'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import type { Database } from '../src/platform/db/schema.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { sampleStudentBody } from './student.ts'
import { UID_PLACEHOLDER } from './record.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const TRIGGERS = ['batch_record_count_insert', 'batch_record_count_update', 'batch_record_count_delete']
const body = sampleStudentBody()

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function measure(db: Kysely<Database>, concurrency: number, label: string): Promise<string[]> {
  await migrateToLatest(db)
  await sql`INSERT INTO transaction_batch (rto_id, transaction_batch_token, jurisdiction, created_by_client)
            VALUES ('90001', 'bench', 'NSW', 'bench')`.execute(db)
  const upload = (uid: string) =>
    sql`SELECT upload_batch_record('90001', 'bench', 'NSW', 'Student', ${uid}::uuid, 'v1', false,
                                   ${body.replace(UID_PLACEHOLDER, uid)}::jsonb, 'bench')`.execute(db)
  const samples: Record<'kept' | 'not kept', { wall: number[]; cpu: number[] }> = {
    kept: { wall: [], cpu: [] },
    'not kept': { wall: [], cpu: [] },
  }
  for (let round = 0; round < ROUNDS * 2; round++) {
    const mode = round % 2 === 0 ? 'kept' : 'not kept'
    for (const trigger of TRIGGERS)
      await sql.raw(`ALTER TABLE batch_record ${mode === 'kept' ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`).execute(db)
    const uids = Array.from({ length: UPLOADS }, () => randomUUID())
    // New records, then each replaced once: the two things an upload does.
    for (const _pass of ['new', 'replaced']) {
      let next = 0
      const cpu = process.cpuUsage()
      const started = performance.now()
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < uids.length) await upload(uids[next++]!)
        }),
      )
      const wall = performance.now() - started
      const used = process.cpuUsage(cpu)
      samples[mode].wall.push((wall * 1000) / UPLOADS)
      samples[mode].cpu.push((used.user + used.system) / UPLOADS)
    }
    // The records written while not kept go again, their triggers still off, so the kept counts stay
    // those of the records there (checked at the end).
    if (mode === 'not kept') await sql`DELETE FROM batch_record WHERE resource_uid = ANY(${uids}::uuid[])`.execute(db)
  }
  for (const trigger of TRIGGERS) await sql.raw(`ALTER TABLE batch_record ENABLE TRIGGER ${trigger}`).execute(db)
  const check = await sql<{ kept: string; fresh: string }>`
    SELECT (SELECT coalesce(sum(record_count), 0) FROM batch_record_count WHERE transaction_batch_token = 'bench')::text AS kept,
           (SELECT count(*) FROM batch_record WHERE transaction_batch_token = 'bench')::text AS fresh`.execute(db)
  const deltas = await sql<{ n: string }>`SELECT count(*)::text AS n FROM batch_record_count`.execute(db)
  return (['kept', 'not kept'] as const).map(
    (mode) =>
      `| ${label} | ${mode} | ${median(samples[mode].wall).toFixed(0)} | ${median(samples[mode].cpu).toFixed(0)} | ${samples[mode].wall.map((w) => w.toFixed(0)).join(', ')} | kept ${check.rows[0]!.kept}, fresh ${check.rows[0]!.fresh}, ${deltas.rows[0]!.n} delta rows |`,
  )
}

const rows: string[] = []
if (process.env.BENCH_ONLY !== 'postgres') {
  const pglite = await PGlite.create()
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  rows.push(...(await measure(db, 1, 'PGlite, 1 connection')))
  await db.destroy()
}
if (process.env.DATABASE_URL)
  rows.push(
    ...(await withFreshPostgres(process.env.DATABASE_URL, async (databaseUrl) => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY })
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
      try {
        return await measure(db, CONCURRENCY, `PostgreSQL, ${CONCURRENCY} connections, one batch`)
      } finally {
        await db.destroy()
      }
    })),
  )
console.log(
  `\nUploads into one batch with the kept counts' triggers on and off, alternating rounds (${ROUNDS} each; ${UPLOADS} new records then ${UPLOADS} replacements per round; per-pass values)\n`,
)
console.log(
  '| Database | Counts | Median wall us per upload | Median process CPU us per upload | Each pass (wall us) | Check |',
)
console.log('|---|---|---|---|---|---|')
for (const row of rows) console.log(row)
