// Two aggregates and an index the console reads (issue 32), each owned by the module named.
//
// 1. reported_activity (modules/holdings): the activity an RTO reported, counted per jurisdiction, reporting period and record type (issue 32,
// item 6: the console's chart of activity per period reads these rows, never a pass over held_record).
// Written by holdings' promotion in the submit's own transaction (holdings.repo.ts, promoteBatch): each
// version submitted In submission adds one to the period of its latest activity date, or of the day it
// was submitted when it carries none. Voided versions are not activity. Owned by modules/holdings.
// Filled here once from the versions already held.
//
// 2. batch_record_search (modules/batches): a batch's records found by what people know them by (item 1:
// search batches by a student's name, client identifier or USI, a unit or program code, a location's
// identifier), the same keys as held_record_search (0024), each `<rto>:<lower-case value>`, so the
// RTO scoping is inside the index. Only the record types that have keys are indexed (enrolments and
// offerings, most of a batch, have none, and would add only empty entries to every upload). The
// expression and condition are batches' (batches.repo.ts, batchesHolding): change both together.
// Built while the migration holds its lock: on a large batch_record, build it beforehand with CREATE
// INDEX CONCURRENTLY under the same name (docs/operations.md); it is then kept.
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
  await sql`
    CREATE INDEX IF NOT EXISTS batch_record_search ON batch_record USING gin ((ARRAY[
      rto_id || ':' || lower(body->>'clientIdentifier'),
      rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
      rto_id || ':' || lower(body->>'familyName'),
      rto_id || ':' || lower(body->>'firstGivenName'),
      rto_id || ':' || lower(body->>'subjectIdentifier'),
      rto_id || ':' || lower(body->>'programIdentifier'),
      rto_id || ':' || lower(body->>'deliveryLocationIdentifier')
    ])) WHERE resource_type IN ('Student', 'Subject', 'Program', 'DeliveryLocation')`.execute(db)
}
