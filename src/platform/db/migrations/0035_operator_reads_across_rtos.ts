// What the operator's pages read across every RTO (issue 32, "Performance": every page p99 at most
// 50 ms at national scale), each owned by the module named.
//
// 1. rto_jurisdiction_submission (modules/holdings): per RTO and jurisdiction, when data was last
// submitted under it: the latest of the RTO's submission marks (reporting_period_submission) under the
// jurisdiction, kept by holdings' promotion in the submit's own transaction (holdings.repo.ts,
// recordReportingPeriods), so the All RTOs list and the collection's list of RTOs reporting under a
// jurisdiction read one row per RTO and jurisdiction, not a GROUP BY over every mark per view. Marks
// are never deleted, so the row only moves forward. Filled here once from the marks already kept.
//
// 2. Indexes that lead with the jurisdiction and period, for the reads of one period across RTOs
// (the collection at a glance and its progress chart), which otherwise filtered whole tables or sent
// an IN list of every RTO: the submission marks (holdings), the assessment runs (assessment) and the
// current declarations (declarations).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE rto_jurisdiction_submission (
      rto_id text NOT NULL,
      jurisdiction text NOT NULL,
      last_submitted_at timestamptz NOT NULL,
      PRIMARY KEY (rto_id, jurisdiction)
    )`.execute(db)
  await sql`CREATE INDEX rto_jurisdiction_submission_by_jurisdiction ON rto_jurisdiction_submission (jurisdiction, rto_id)`.execute(
    db,
  )
  await sql`
    INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
    SELECT rto_id, jurisdiction, max(last_submitted_at) FROM reporting_period_submission GROUP BY rto_id, jurisdiction`.execute(
    db,
  )
  await sql`CREATE INDEX reporting_period_submission_by_period ON reporting_period_submission (jurisdiction, reporting_period, rto_id)`.execute(
    db,
  )
  await sql`CREATE INDEX assessment_run_by_period ON assessment_run (jurisdiction, reporting_period, rto_id)`.execute(
    db,
  )
  await sql`CREATE INDEX declaration_current_by_period ON declaration (jurisdiction, reporting_period, rto_id) WHERE is_current`.execute(
    db,
  )
  await sql`CREATE INDEX declaration_by_jurisdiction ON declaration (jurisdiction, rto_id)`.execute(db)
}
