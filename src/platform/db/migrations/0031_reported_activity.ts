// The activity an RTO reported, counted per jurisdiction, reporting period and record type (issue 32,
// item 6: the console's chart of activity per period reads these rows, never a pass over held_record).
// Written by holdings' promotion in the submit's own transaction (holdings.repo.ts, promoteBatch): each
// version submitted In submission adds one to the period of its latest activity date, or of the day it
// was submitted when it carries none. Voided versions are not activity. Owned by modules/holdings.
// Filled here once from the versions already held.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE reported_activity (
      rto_id text NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      resource_type text NOT NULL,
      records bigint NOT NULL,
      PRIMARY KEY (rto_id, jurisdiction, reporting_period, resource_type)
    )`.execute(db)
  await sql`
    INSERT INTO reported_activity (rto_id, jurisdiction, reporting_period, resource_type, records)
    SELECT rto_id, jurisdiction,
           (extract(year FROM d) * 100 + extract(quarter FROM d))::int, resource_type, count(*)
      FROM (SELECT rto_id, jurisdiction, resource_type,
                   coalesce(student_activity_date, (submitted_at AT TIME ZONE 'UTC')::date) AS d
              FROM held_record WHERE state_in_submission = 'In submission') AS v
     GROUP BY 1, 2, 3, 4`.execute(db)
}
