// What a module publishes for other modules' set-based SQL to read, as views over its own tables
// (issue 34: boundaries that hold in SQL too). A module that reads another's data in SQL names one of
// these views, never the table, so the owner may change its table (a column, a flag, a split) and
// keep the view: the change touches the owner alone. Simple views are inlined by the planner, so a
// query through them is planned exactly as the same query on the table (the partial index of current
// held versions still serves `held_current`). test/sql-boundaries.test.ts checks that no module's
// SQL names another module's table. docs/architecture.md, "Who owns which table".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // batches: each batch's records as uploaded, and the batch's content fingerprint (any upload,
  // replacement or deletion changes it), which a validation run is based on.
  await sql`
    CREATE VIEW batch_content AS
    SELECT rto_id, transaction_batch_token, resource_type, resource_uid, change_tracking_identifier, is_voided, body,
           uploaded_by_client, uploaded_at, change_seq
      FROM batch_record`.execute(db)
  await sql`
    CREATE VIEW batch_fingerprint AS
    SELECT b.rto_id, b.transaction_batch_token, b.content_version, f.record_count, f.change_seq_sum
      FROM transaction_batch b,
           LATERAL (SELECT count(*) AS record_count, coalesce(sum(r.change_seq), 0) AS change_seq_sum
                      FROM batch_record r
                     WHERE r.rto_id = b.rto_id AND r.transaction_batch_token = b.transaction_batch_token) f`.execute(db)
  // holdings: the current version of each held record, and of those the ones in submission (not
  // voided): what "held" means everywhere else.
  const heldColumns = sql.raw(`rto_id, resource_type, resource_uid, submission_seq, state_in_submission, voided_reason,
           jurisdiction, transaction_batch_token, submitted_by_client, submitted_at, change_tracking_identifier,
           student_activity_date, body`)
  // The latest submission of each RTO, jurisdiction and period: what a completed assessment is based on.
  await sql`
    CREATE VIEW period_last_submission AS
    SELECT rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq FROM reporting_period_submission`.execute(
    db,
  )
  await sql`CREATE VIEW held_current AS SELECT ${heldColumns} FROM held_record WHERE is_current`.execute(db)
  await sql`
    CREATE VIEW held_in_submission AS SELECT ${heldColumns} FROM held_record
     WHERE is_current AND state_in_submission = 'In submission'`.execute(db)
}
