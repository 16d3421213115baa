// A data quality assessment's working copy of the period (issue 30: the embedded database stays
// responsive). The rules read the RTO's held enrolments, students, offerings and subjects, and each
// computed again from the bodies which enrolments fall in the period and how they stood at its end:
// every rule one statement over the whole period (2 to 3 s each at 100,000 records on the embedded
// database, the service answering nothing meanwhile). An attempt now copies those records here once,
// in slices, with the derived facts as columns (in_period, the states), and the rules read this copy;
// the attempt's rows are deleted when it ends. Unlogged: a working copy, rebuilt by a new attempt, is
// not worth writing ahead (a crash empties it, and the attempt it belonged to is retried as a new one).
// Owned by modules/assessment.
//
// And a view batches publishes (issue 30, the validation status of a large batch): the batch's change
// marker, its content version (deletions) and its latest change number (every upload or replacement takes
// a new one), one index probe where the fingerprint's count and sum read every record's change number.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE UNLOGGED TABLE assessment_stage (
      rto_id text NOT NULL,
      run_id uuid NOT NULL,
      attempt integer NOT NULL,
      resource_type text NOT NULL,
      uid uuid NOT NULL,
      change_tracking_identifier text,
      client text NOT NULL,
      submitted_at timestamptz NOT NULL,
      jurisdiction text NOT NULL,
      body jsonb NOT NULL,
      in_period boolean NOT NULL DEFAULT false,
      state_at_period_end text,
      state_as_at text,
      PRIMARY KEY (rto_id, run_id, attempt, resource_type, uid)
    )`.execute(db)
  await sql`
    CREATE VIEW batch_change_marker AS
    SELECT b.rto_id, b.transaction_batch_token, b.content_version,
           (SELECT max(r.change_seq) FROM batch_record r
             WHERE r.rto_id = b.rto_id AND r.transaction_batch_token = b.transaction_batch_token) AS last_change_seq
      FROM transaction_batch b`.execute(db)
}
