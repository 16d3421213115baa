// Transaction batches and the records uploaded into them. Every key and index leads with rto_id, so
// the data can later be partitioned or distributed by RTO.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE transaction_batch (
      rto_id text NOT NULL,
      transaction_batch_token text NOT NULL,
      jurisdiction text NOT NULL,
      status text NOT NULL DEFAULT 'NotSubmitted' CHECK (status IN ('NotSubmitted', 'Submitted')),
      content_version bigint NOT NULL DEFAULT 0,
      created_by_client text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      submitted_at timestamptz,
      PRIMARY KEY (rto_id, transaction_batch_token)
    )`.execute(db)
  await sql`CREATE INDEX transaction_batch_newest_idx ON transaction_batch (rto_id, created_at DESC, transaction_batch_token)`.execute(
    db,
  )
  await sql`
    CREATE TABLE batch_record (
      rto_id text NOT NULL,
      transaction_batch_token text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      change_tracking_identifier text,
      is_voided boolean NOT NULL DEFAULT false,
      body jsonb NOT NULL,
      uploaded_by_client text NOT NULL,
      uploaded_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, transaction_batch_token, resource_type, resource_uid),
      FOREIGN KEY (rto_id, transaction_batch_token) REFERENCES transaction_batch (rto_id, transaction_batch_token) ON DELETE CASCADE
    )`.execute(db)
}
