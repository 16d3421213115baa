// Batch records no longer carry a foreign key to their batch. The upload statement already checks
// and share-locks the open batch itself; the foreign key's check took a second lock on the same row
// for every upload, which under many concurrent uploads to one batch was a large part of their cost.
// Discarding a batch deletes its records explicitly, in the same transaction.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE batch_record DROP CONSTRAINT IF EXISTS batch_record_rto_id_transaction_batch_token_fkey`.execute(
    db,
  )
}
