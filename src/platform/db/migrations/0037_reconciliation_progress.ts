// The reconciliation indexing's kept progress on the embedded database (issue 30: one process must
// never stall the others). There the indexing of a submission runs as bounded steps, each its own
// short transaction with an event-loop turn between (reconciliation-index-steps.repo.ts), so the one
// connection PGlite has is free for requests between them; what the one-transaction indexing keeps in
// temporary tables (the records the submission affects, the links it dropped, the items as they were
// before) is kept here, with the step reached, so a process killed between steps resumes where it
// stopped and ends with the same index. Logged: a crash must keep them (an unlogged table is emptied by
// the crash it would have to survive). PostgreSQL keeps the one transaction and never writes here
// (docs/decisions.md, "Round 5 (issue 30)"). Owned by modules/reconciliation; every key leads with rto_id.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per RTO whose indexing is under way: the batch, the step reached and, inside a sliced
  // step, the last key done.
  await sql`
    CREATE TABLE reconciliation_progress (
      rto_id text PRIMARY KEY,
      transaction_batch_token text NOT NULL,
      jurisdiction text NOT NULL,
      submitted_at timestamptz NOT NULL,
      records integer NOT NULL,
      step text NOT NULL,
      after_type text,
      after_uid uuid
    )`.execute(db)
  await sql`
    CREATE TABLE reconciliation_progress_affected (
      rto_id text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      PRIMARY KEY (rto_id, resource_type, resource_uid)
    )`.execute(db)
  await sql`
    CREATE TABLE reconciliation_progress_dropped_link (
      rto_id text NOT NULL,
      target_type text NOT NULL,
      target_uid uuid NOT NULL,
      source_type text NOT NULL,
      source_uid uuid NOT NULL,
      PRIMARY KEY (rto_id, target_type, target_uid, source_type, source_uid)
    )`.execute(db)
  await sql`
    CREATE TABLE reconciliation_progress_before (
      rto_id text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      enrolment_activity_date date,
      student_activity_date date NOT NULL,
      PRIMARY KEY (rto_id, resource_type, resource_uid)
    )`.execute(db)
}
