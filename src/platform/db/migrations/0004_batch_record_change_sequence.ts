// Every write of a batch record takes a number from one sequence. Uploads then no longer touch the
// batch row (which serialised concurrent uploads to one batch on its lock); what changed in a batch
// since a moment is told by these numbers, with the batch's content_version counting deletions.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE SEQUENCE batch_record_change_seq`.execute(db)
  await sql`ALTER TABLE batch_record ADD COLUMN change_seq bigint NOT NULL DEFAULT nextval('batch_record_change_seq')`.execute(
    db,
  )
}
