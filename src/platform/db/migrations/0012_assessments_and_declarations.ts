// Data quality assessments (one series of runs per RTO, jurisdiction and reporting period), their
// failed outcomes, and declarations. Keys lead with rto_id, as elsewhere.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per request to assess a period. The status a client sees is derived from the latest row
  // (docs/decisions.md, Data quality assessment): Completed reads as Validated until data is submitted
  // for the period after basis_submission_seq, then as Required. `attempt` works as for validation runs.
  await sql`
    CREATE TABLE assessment_run (
      rto_id text NOT NULL,
      run_id uuid NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      status text NOT NULL CHECK (status IN ('Queued', 'InProgress', 'Completed', 'Cancelled', 'Fault')),
      attempt integer NOT NULL DEFAULT 0,
      requested_by_client text NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      completed_at timestamptz,
      basis_submission_seq bigint,
      has_blocking_failures boolean,
      has_non_blocking_failures boolean,
      result_count integer,
      PRIMARY KEY (rto_id, run_id)
    )`.execute(db)
  await sql`CREATE INDEX assessment_run_period_idx ON assessment_run (rto_id, jurisdiction, reporting_period, requested_at DESC)`.execute(
    db,
  )
  // At most one pending assessment per period, whatever races the request path loses.
  await sql`CREATE UNIQUE INDEX assessment_run_one_pending ON assessment_run (rto_id, jurisdiction, reporting_period) WHERE status IN ('Queued', 'InProgress')`.execute(
    db,
  )

  await sql`
    CREATE TABLE assessment_result (
      rto_id text NOT NULL,
      run_id uuid NOT NULL,
      attempt integer NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      assessment_grouping_id uuid NOT NULL,
      technical_rule_id text NOT NULL,
      rule_id text NOT NULL,
      message_level text NOT NULL CHECK (message_level IN ('Error', 'Warning')),
      corrective_action text NOT NULL,
      message text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      change_tracking_identifier text,
      submitted_by_client text NOT NULL,
      PRIMARY KEY (rto_id, run_id, attempt, seq),
      FOREIGN KEY (rto_id, run_id) REFERENCES assessment_run (rto_id, run_id) ON DELETE CASCADE
    )`.execute(db)

  // Every declaration is kept; the latest for a period is current and supersedes the others.
  await sql`
    CREATE TABLE declaration (
      rto_id text NOT NULL,
      declaration_id uuid NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      declaration_type text NOT NULL CHECK (declaration_type IN ('Declaration', 'Nil_activity_report')),
      date_of_last_reportable_activity date,
      rto_user_name text NOT NULL,
      rto_user_email_address text NOT NULL,
      declared_by_client text NOT NULL,
      declared_at timestamptz NOT NULL,
      assessment_run_id uuid NOT NULL,
      is_current boolean NOT NULL,
      PRIMARY KEY (rto_id, declaration_id)
    )`.execute(db)
  await sql`CREATE UNIQUE INDEX declaration_current ON declaration (rto_id, jurisdiction, reporting_period) WHERE is_current`.execute(
    db,
  )
  await sql`CREATE INDEX declaration_period_idx ON declaration (rto_id, reporting_period, jurisdiction, declared_at DESC)`.execute(
    db,
  )
}
