// The authorised person's review of an assessment's warnings before declaring (issue 32, item 4): one
// row per warning rule of an assessment run they acknowledged, with their optional explanation. A
// declaration names the run it relied on (declaration.assessment_run_id), so the acknowledgements of
// that run are the ones kept with it; rows are never deleted, and once a declaration relies on a run
// its acknowledgements no longer change. Owned by modules/declarations.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE warning_acknowledgement (
      rto_id text NOT NULL,
      assessment_run_id uuid NOT NULL,
      technical_rule_id text NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      outcome_count integer NOT NULL,
      explanation text NOT NULL CHECK (char_length(explanation) <= 2000),
      acknowledged_by_name text NOT NULL,
      acknowledged_by_client text NOT NULL,
      acknowledged_at timestamptz NOT NULL,
      PRIMARY KEY (rto_id, assessment_run_id, technical_rule_id)
    )`.execute(db)
}
