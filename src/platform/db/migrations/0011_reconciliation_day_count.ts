// How many reconciliation items each RTO has per type and activity date. Search by period reads its
// total from here (at most a few hundred rows for ten quarters) instead of counting items, and uses
// it to start a deep page at the right day instead of skipping every item before it.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE reconciliation_day_count (
      rto_id text NOT NULL,
      resource_type text NOT NULL,
      student_activity_date date NOT NULL,
      items integer NOT NULL CHECK (items > 0),
      PRIMARY KEY (rto_id, resource_type, student_activity_date)
    )`.execute(db)
  await sql`
    INSERT INTO reconciliation_day_count (rto_id, resource_type, student_activity_date, items)
    SELECT rto_id, resource_type, student_activity_date, count(*) FROM reconciliation_item
     WHERE student_activity_date IS NOT NULL
     GROUP BY rto_id, resource_type, student_activity_date`.execute(db)
}
