// NAT imports as queued jobs (issue 31 item 8): each POST .../nat-import is a row here, run by the
// queue's nat-import job (one RTO's imports take turns; other RTOs' run beside them), and read back as
// the import's status: queued, running with its progress, completed with the batch it made, or failed
// with its problem. The zip is held until the job has run (the batch's own nat_import row keeps it
// after). Owned by modules/nat-bridge.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE nat_import_job (
      rto_id text NOT NULL,
      import_id uuid NOT NULL,
      jurisdiction text NOT NULL,
      client_id text NOT NULL,
      zip bytea,
      status text NOT NULL CHECK (status IN ('Queued', 'Running', 'Completed', 'Failed')),
      progress jsonb NOT NULL DEFAULT '{}'::jsonb,
      transaction_batch_token text,
      problem jsonb,
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      PRIMARY KEY (rto_id, import_id)
    )`.execute(db)
}
