// A batch's records in change order (issue 20: the console's batch page, and the API's batch and
// validation status, of a 100,000-record batch). The validation fingerprint (count and sum of
// change_seq) becomes an index-only scan instead of reading every record's row, and the batch's last
// upload one index probe (the record with the latest change number). Owned by modules/batches.
// Built while the migration holds its lock: on a large batch_record, build it beforehand with
// CREATE INDEX CONCURRENTLY under the same name (docs/operations.md, upgrades); it is then kept.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS batch_record_by_change ON batch_record (rto_id, transaction_batch_token, change_seq)`.execute(
    db,
  )
}
