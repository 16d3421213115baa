// The reporting periods a validated batch's records are active in (issue 30: the submit's freeze on the
// embedded database). Submit records them for data quality assessments (reporting_period_submission);
// it read every body of the batch again for them, in its own transaction, 485 ms at 100,000 records,
// while the validation that must precede it reads every body anyway. The run keeps them from its record
// pass; null for a run completed before this column (submit then reads the batch, as before).
// docs/decisions.md, "Fifteenth session".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE validation_run ADD COLUMN activity_periods integer[]`.execute(db)
}
