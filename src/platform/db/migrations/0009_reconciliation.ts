// What reconciliation reads, kept current by every submission: the links between held records (who
// references whom, for the current version of each record in submission), and one reconciliation item
// per record in submission with the activity date it is searched and sorted by. Every key leads with
// rto_id, so no query reads another RTO's rows, and no query reads old versions.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE held_link (
      rto_id text NOT NULL,
      source_type text NOT NULL,
      source_uid uuid NOT NULL,
      target_type text NOT NULL,
      target_uid uuid NOT NULL,
      PRIMARY KEY (rto_id, target_type, target_uid, source_type, source_uid)
    )`.execute(db)
  await sql`CREATE INDEX held_link_source_idx ON held_link (rto_id, source_type, source_uid, target_type)`.execute(db)
  await sql`
    CREATE TABLE reconciliation_item (
      rto_id text NOT NULL,
      resource_type text NOT NULL,
      resource_uid uuid NOT NULL,
      student_activity_date date,
      submitted_at timestamptz NOT NULL,
      change_tracking_identifier text,
      PRIMARY KEY (rto_id, resource_type, resource_uid)
    )`.execute(db)
  // Search by period: one range of this index per period, already in the order results are returned.
  await sql`CREATE INDEX reconciliation_item_activity_idx ON reconciliation_item (rto_id, resource_type, student_activity_date DESC, resource_uid)`.execute(
    db,
  )
}
