// NAT imports in the service (issue 19): the zip a batch was made from, kept with the batch, so that
// its validation results can be told as NAT file, line and field at any later time (the records'
// origins are derived again from the zip), and what the import answered. Owned by modules/nat-bridge.
// A discarded batch takes its import with it.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE nat_import (
      rto_id text NOT NULL,
      transaction_batch_token text NOT NULL,
      rto_code text NOT NULL,
      zip bytea NOT NULL,
      summary jsonb NOT NULL,
      imported_by_client text NOT NULL,
      imported_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, transaction_batch_token),
      FOREIGN KEY (rto_id, transaction_batch_token) REFERENCES transaction_batch (rto_id, transaction_batch_token) ON DELETE CASCADE
    )`.execute(db)
}
