// Validation runs and their results, the held dataset (every submitted version of every record), and
// the signal a submission leaves for data quality assessments. Keys lead with rto_id, as elsewhere.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per request to validate a batch. `attempt` counts the times a worker took the run up: a
  // worker that died mid-run leaves results of an older attempt, which readers and the next attempt
  // ignore. The fingerprint (content_version, record_count, change_seq_sum) is the batch as it stood
  // when the attempt started; any later upload, replacement or deletion changes it.
  await sql`
    CREATE TABLE validation_run (
      rto_id text NOT NULL,
      run_id uuid NOT NULL,
      transaction_batch_token text NOT NULL,
      status text NOT NULL CHECK (status IN ('Queued', 'InProgress', 'Validated', 'Cancelled')),
      attempt integer NOT NULL DEFAULT 0,
      requested_by_client text NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      completed_at timestamptz,
      content_version bigint,
      record_count bigint,
      change_seq_sum numeric,
      has_blocking_failures boolean,
      has_non_blocking_failures boolean,
      result_count integer,
      PRIMARY KEY (rto_id, run_id)
    )`.execute(db)
  await sql`CREATE INDEX validation_run_batch_idx ON validation_run (rto_id, transaction_batch_token, requested_at DESC)`.execute(
    db,
  )

  await sql`
    CREATE TABLE validation_result (
      rto_id text NOT NULL,
      run_id uuid NOT NULL,
      attempt integer NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      validation_grouping_id uuid NOT NULL,
      related_validation_result_count integer NOT NULL,
      error_number text NOT NULL,
      rule_id text NOT NULL,
      technical_rule_id text NOT NULL,
      validation_message_level text NOT NULL CHECK (validation_message_level IN ('Error', 'Warning')),
      corrective_action text NOT NULL,
      message text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      access_path text[] NOT NULL,
      change_tracking_identifier text,
      data_source text NOT NULL CHECK (data_source IN ('Transaction_batch', 'Previously_submitted_data')),
      PRIMARY KEY (rto_id, run_id, attempt, seq)
    )`.execute(db)

  // The held dataset: one row per submitted version; is_current marks the latest. Rows are never
  // deleted or changed except for is_current, so the history stays for audit.
  await sql`CREATE SEQUENCE submission_seq`.execute(db)
  await sql`
    CREATE TABLE held_record (
      rto_id text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      submission_seq bigint NOT NULL,
      is_current boolean NOT NULL,
      state_in_submission text NOT NULL CHECK (state_in_submission IN ('In submission', 'Voided in submission')),
      voided_reason text,
      jurisdiction text NOT NULL,
      transaction_batch_token text NOT NULL,
      submitted_by_client text NOT NULL,
      submitted_at timestamptz NOT NULL,
      change_tracking_identifier text,
      student_activity_date date,
      body jsonb NOT NULL,
      PRIMARY KEY (rto_id, resource_type, resource_uid, submission_seq)
    )`.execute(db)
  await sql`CREATE UNIQUE INDEX held_record_current_idx ON held_record (rto_id, resource_type, resource_uid) WHERE is_current`.execute(
    db,
  )

  // What a data quality assessment needs to know: when data of a reporting period was last submitted.
  await sql`
    CREATE TABLE reporting_period_submission (
      rto_id text NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      last_submitted_at timestamptz NOT NULL,
      last_submission_seq bigint NOT NULL,
      PRIMARY KEY (rto_id, jurisdiction, reporting_period)
    )`.execute(db)
}
