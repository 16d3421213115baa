// The console's submit as a queued job (issue 32 item 3): one row per press of Submit, from Queued
// through Running (with its stage) to Submitted (what was submitted) or Failed (the refusal), read back
// by the submit's status page. The row is marked Submitted in the submit's own transaction, so a batch
// is never submitted without its job saying so. At most one unfinished submit per batch: a second press
// while one is queued or running finds it, and submits nothing twice. Owned by modules/holdings.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE submit_job (
      rto_id text NOT NULL,
      submit_id uuid NOT NULL,
      jurisdiction text NOT NULL,
      transaction_batch_token text NOT NULL,
      client_id text NOT NULL,
      acknowledge_dropped integer,
      status text NOT NULL CHECK (status IN ('Queued', 'Running', 'Submitted', 'Failed')),
      stage text,
      result jsonb,
      problem jsonb,
      attempts integer NOT NULL DEFAULT 0,
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      PRIMARY KEY (rto_id, submit_id)
    )`.execute(db)
  await sql`
    CREATE UNIQUE INDEX submit_job_unfinished ON submit_job (rto_id, transaction_batch_token)
     WHERE status IN ('Queued', 'Running')`.execute(db)
}
