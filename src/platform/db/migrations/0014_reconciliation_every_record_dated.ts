// Every record in submission has an activity date (docs/decisions.md, "Activity dates"): the latest
// activity date of the current enrolments that reach it, or, when none does, the UTC date of its own
// latest submission. enrolment_activity_date keeps the first part apart, since only enrolment activity
// dates the records above a record (a subject offering nobody is enrolled in does not date its subject).
// Existing items were dated only by enrolments; those left undated get their submission date here.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE reconciliation_item ADD COLUMN enrolment_activity_date date`.execute(db)
  await sql`UPDATE reconciliation_item SET enrolment_activity_date = student_activity_date WHERE student_activity_date IS NOT NULL`.execute(
    db,
  )
  await sql`UPDATE reconciliation_item SET student_activity_date = (submitted_at AT TIME ZONE 'UTC')::date WHERE student_activity_date IS NULL`.execute(
    db,
  )
  await sql`ALTER TABLE reconciliation_item ALTER COLUMN student_activity_date SET NOT NULL`.execute(db)
  await sql`
    INSERT INTO reconciliation_day_count (rto_id, resource_type, student_activity_date, items)
    SELECT rto_id, resource_type, student_activity_date, count(*) FROM reconciliation_item
     WHERE enrolment_activity_date IS NULL
     GROUP BY rto_id, resource_type, student_activity_date
    ON CONFLICT (rto_id, resource_type, student_activity_date) DO UPDATE SET items = reconciliation_day_count.items + excluded.items`.execute(
    db,
  )
}
