// Submit's promotion and the reconciliation indexing, statement by statement (issue 30): a batch of
// BENCH_RECORDS (20,000) records written straight into the database, promoted and indexed as the submit
// request and the reconciliation job do, one transaction each, and every statement that took longer
// than BENCH_SLOW_MS (100) printed with its time. On PGlite (in memory, or in BENCH_DATA_DIR), or, with
// DATABASE_URL, in a fresh PostgreSQL database dropped afterwards. For measuring a change to those statements; not part of `npm run bench` (no service, no HTTP:
// bench/embedded-responsiveness.ts and bench/validation.ts measure what the service's clients see).
// BENCH_SLICE_RECORDS=n indexes in steps of n records instead, each its own transaction with an event-loop
// turn between (what the reconciliation job does on the embedded database), and prints the steps'
// number and the longest (the longest the embedded service is held by the indexing).
//   BENCH_RECORDS=50000 node bench/submission-statements.ts
//   BENCH_RECORDS=100000 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/submission-statements.ts
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect, type LogEvent } from 'kysely'
import pg from 'pg'
import type { Database } from '../src/platform/db/schema.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import * as holdings from '../src/modules/holdings/holdings.repo.ts'
import { indexSubmission } from '../src/modules/reconciliation/reconciliation-index.repo.ts'
import {
  indexingStep,
  keptProgress,
  startIndexing,
} from '../src/modules/reconciliation/reconciliation-index-steps.repo.ts'
import { FIRST_REPORTING_PERIOD } from '../src/domain/reporting-period.ts'
import { firstSubmissionOf, loadBatch } from './batch-loader.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000)
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 100)
const SLICE_RECORDS = Number(process.env.BENCH_SLICE_RECORDS ?? 0) // 0: one transaction
let timing = false
const log = (event: LogEvent) => {
  if (timing && event.queryDurationMillis > SLOW_MS)
    console.log(
      `  ${event.queryDurationMillis.toFixed(0)} ms: ${event.query.sql.replace(/\s+/g, ' ').trim().slice(0, 160)}`,
    )
}

async function measure(db: Kysely<Database>, where: string): Promise<void> {
  await migrateToLatest(db)
  const { token } = await loadBatch(db, RECORDS)
  const submittedAt = new Date()
  const promotion = { ...firstSubmissionOf(token), submittedAt }
  timing = true
  const seconds = async (what: string, work: () => Promise<void>) => {
    const started = performance.now()
    await work()
    console.log(`${what}: ${((performance.now() - started) / 1000).toFixed(2)} s`)
  }
  console.log(`${RECORDS} records, ${where}`)
  await seconds('promotion', () =>
    db.transaction().execute(async (tx) => {
      await holdings.promoteBatch(tx, promotion)
      await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD)
    }),
  )
  if (SLICE_RECORDS > 0) {
    await seconds(`indexing in steps of ${SLICE_RECORDS} records`, async () => {
      await db.transaction().execute((tx) => startIndexing(tx, '90001', { token, jurisdiction: 'NSW', submittedAt }))
      let steps = 1
      let longest = { ms: 0, step: '' }
      for (;;) {
        const started = performance.now()
        const ran = await db.transaction().execute(async (tx) => {
          const progress = await keptProgress(tx, '90001')
          return progress
            ? { step: progress.step, outcome: await indexingStep(tx, progress, SLICE_RECORDS) }
            : undefined
        })
        if (!ran) break
        steps++
        const ms = performance.now() - started
        if (ms > longest.ms) longest = { ms, step: ran.step }
        await new Promise((resolve) => setImmediate(resolve))
      }
      console.log(`  ${steps} steps, the longest ${longest.ms.toFixed(0)} ms (${longest.step})`)
    })
  } else
    await seconds('indexing', () =>
      db.transaction().execute((tx) => indexSubmission(tx, { rto: '90001', token, submittedAt })),
    )
  timing = false
}

const adminUrl = process.env.DATABASE_URL || undefined
if (adminUrl) {
  await withFreshPostgres(adminUrl, async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log })
    try {
      await measure(db, 'PostgreSQL (a fresh database)')
    } finally {
      await db.destroy()
    }
  })
} else {
  const pglite = await PGlite.create(process.env.BENCH_DATA_DIR || undefined, { parsers: { 1082: (v: string) => v } })
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }), log })
  await measure(db, `PGlite ${process.env.BENCH_DATA_DIR ? 'in a data directory' : 'in memory'}`)
  await db.destroy()
}
