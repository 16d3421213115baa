// What the indexing benches of PostgreSQL start from (bench/link-insert.ts, bench/staged-links.ts): a
// fresh database (dropped afterwards) migrated, `records` records loaded as one batch of the demo RTO
// and promoted as its first submission, then VACUUM ANALYZE, as a live database's autovacuum keeps it.
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import type { Database } from '../src/platform/db/schema.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import * as holdings from '../src/modules/holdings/holdings.repo.ts'
import { FIRST_REPORTING_PERIOD } from '../src/domain/reporting-period.ts'
import { firstSubmissionOf, loadBatch } from './batch-loader.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

export type PromotedSubmission = ReturnType<typeof firstSubmissionOf>

export async function withPromotedBatch(
  adminUrl: string,
  records: number,
  work: (db: Kysely<Database>, submission: PromotedSubmission) => Promise<void>,
): Promise<void> {
  pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)
  await withFreshPostgres(adminUrl, async (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    try {
      await migrateToLatest(db)
      const { token } = await loadBatch(db, records)
      const submission = firstSubmissionOf(token)
      await db.transaction().execute(async (tx) => {
        await holdings.promoteBatch(tx, submission)
        await holdings.recordReportingPeriods(tx, submission, FIRST_REPORTING_PERIOD)
      })
      await sql`VACUUM ANALYZE`.execute(db)
      await work(db, submission)
    } finally {
      await db.destroy()
    }
  })
}
