// `node bench/reconciliation-submission.ts` (part of `npm run bench`; PostgreSQL only, skipped without
// DATABASE_URL): what a small submission costs an RTO that already holds a lot. One RTO is seeded with
// BENCH_HELD_STUDENTS students (five records each: src/cli/synthetic-data.ts, in batches of 250,000),
// VACUUM ANALYZE; then BENCH_RUNS rounds, each a new batch of BENCH_SUBMISSION of its held subject
// enrolments (a different sample each round), every one with a later cancellation added to its
// lifecycle, as a weekly SMS sync sends them, submitted through the bulk path (promotion into the held
// records and reconciliation indexing in one transaction, what npm run seed:synthetic does). Prints
// each round's seconds and their median. The cost should follow the submission's size, not the RTO's:
// run it at two BENCH_HELD_STUDENTS to see (bench/results.md).
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { createService } from '../src/app.ts'
import { seedSynthetic } from '../src/cli/synthetic-data.ts'
import { loadConfig } from '../src/config/config.ts'
import { createBatchWithRecords } from '../src/modules/batches/index.ts'
import { submitWithoutValidation } from '../src/modules/holdings/bulk-load.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { median, positiveInteger } from './settings.ts'

const settings = {
  heldStudents: positiveInteger('BENCH_HELD_STUDENTS', 100_000, 2_000_000),
  submission: positiveInteger('BENCH_SUBMISSION', 2_000, 100_000),
  runs: positiveInteger('BENCH_RUNS', 5, 50),
}
const RTO = '90001'
const adminUrl = process.env.DATABASE_URL || undefined

// Bounded: seeding at a pessimistic 2,000 records/s, each round at 60 s.
const budgetSeconds = (settings.heldStudents * 5) / 2_000 + settings.runs * 60 + 120
const watchdog = setTimeout(() => {
  console.error(`bench reconciliation-submission: gave up after ${Math.round(budgetSeconds)} s (over budget)`)
  process.exit(2)
}, budgetSeconds * 1000)
watchdog.unref()

interface HeldEnrolment {
  uid: string
  body: { lifecycle: Record<string, unknown>[] } & Record<string, unknown>
}

async function measure(databaseUrl: string): Promise<{ held: number; seconds: number[] }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', DATABASE_URL: databaseUrl })
  const service = await createService(config, { workers: false })
  try {
    const db = service.database.db
    const started = performance.now()
    const seeded = await seedSynthetic(db, {
      students: settings.heldStudents,
      rtos: [RTO],
      jurisdiction: 'NSW',
      batchRecords: 250_000,
      busyStudentEnrolments: 0,
    })
    await sql`VACUUM ANALYZE`.execute(db)
    console.log(
      `  seeded ${seeded.records} held record versions for RTO ${RTO} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    )
    const seconds: number[] = []
    for (let round = 0; round < settings.runs; round++) {
      const { rows } = await sql<HeldEnrolment>`
        SELECT resource_uid::text AS uid, body FROM held_record
         WHERE rto_id = ${RTO} AND resource_type = 'SubjectEnrolment' AND is_current
         ORDER BY md5(resource_uid::text || ${String(round)}) LIMIT ${settings.submission}`.execute(db)
      const token = `bench-${randomBytes(12).toString('hex')}`
      const version = `sync-${round + 1}`
      const cancelled = {
        studentStatus: 'Cancelled',
        studentActivityDate: `2026-11-${String(10 + round).padStart(2, '0')}`,
        studentStatusReason: 'Formal_withdrawal',
      }
      await createBatchWithRecords(
        db,
        { rto: RTO, token, jurisdiction: 'NSW', clientId: 'bench' },
        rows.map((row) => ({
          resourceType: 'SubjectEnrolment' as const,
          resourceUID: row.uid,
          changeTrackingIdentifier: version,
          isVoided: false,
          body: { ...row.body, changeTrackingIdentifier: version, lifecycle: [...row.body.lifecycle, cancelled] },
        })),
      )
      const submitted = performance.now()
      await submitWithoutValidation(db, { rto: RTO, token, jurisdiction: 'NSW', clientId: 'bench' })
      seconds.push((performance.now() - submitted) / 1000)
      console.log(
        `  round ${round + 1}/${settings.runs}: ${rows.length} subject enrolments submitted and indexed in ${seconds.at(-1)!.toFixed(2)} s`,
      )
    }
    return { held: seeded.records, seconds }
  } finally {
    await service.close()
  }
}

async function main(): Promise<void> {
  if (!adminUrl) {
    console.log('bench reconciliation-submission: no DATABASE_URL, skipped (PostgreSQL only)')
    return
  }
  console.log(
    `bench reconciliation-submission: ${new Date().toISOString()}, Node ${process.version}; RTO ${RTO} holding ${settings.heldStudents} students, ${settings.runs} submissions of ${settings.submission} updated subject enrolments`,
  )
  const { held, seconds } = await withFreshPostgres(adminUrl, measure)
  console.log(
    `\nA submission of ${settings.submission} updated subject enrolments into an RTO holding ${held} records: ${median(seconds).toFixed(2)} s (median of ${seconds.length}; promotion and reconciliation indexing)`,
  )
  console.log(
    JSON.stringify({ ...settings, held, seconds: seconds.map((s) => Number(s.toFixed(3))), median: median(seconds) }),
  )
}

try {
  await main()
} catch (error) {
  console.error('bench reconciliation-submission failed:', error)
  process.exitCode = 1
}
