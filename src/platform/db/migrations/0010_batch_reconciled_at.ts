// Reconciliation reflects a submission once a queue job has indexed it (submit commits the held
// versions; the links and items follow in the background, in submission order per RTO).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE transaction_batch ADD COLUMN reconciled_at timestamptz`.execute(db)
  await sql`CREATE INDEX transaction_batch_unreconciled_idx ON transaction_batch (rto_id, submitted_at) WHERE status = 'Submitted' AND reconciled_at IS NULL`.execute(
    db,
  )
}
