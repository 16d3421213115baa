// SQL for the held dataset: every submitted version of every record, per RTO. Rows are only ever
// inserted, and the previous current version of a UID loses is_current, so history stays for audit.
import { sql, type RawBuilder } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import { integerArray } from '../../platform/db/sql-arrays.ts'

export type {
  HeldRecordRow,
  HeldRecordTable,
  HoldingsViews,
  ReportedActivityTable,
  ReportingPeriodSubmissionTable,
  RtoJurisdictionSubmissionTable,
  StateInSubmission,
} from './holdings.tables.ts'

/** Serialises submissions of one RTO for the rest of the transaction: later submissions take later numbers. */
export async function lockRtoForSubmission(db: Executor, rto: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:submit:${rto}`}))`.execute(db)
}

/**
 * The submission's number and time, taken once the RTO's lock is held, so that both follow the order
 * submissions of the RTO are applied in (now() would be the transaction's start, before the wait).
 */
export async function nextSubmission(db: Executor): Promise<{ seq: string; at: Date }> {
  const result = await sql<{
    seq: string
    at: Date
  }>`SELECT nextval('submission_seq')::text AS seq, clock_timestamp() AS at`.execute(db)
  const row = result.rows[0]!
  return { seq: row.seq, at: new Date(row.at) }
}

export interface Promotion {
  rto: string
  token: string
  jurisdiction: string
  clientId: string
  submissionSeq: string
  submittedAt: Date
}

/**
 * Makes every record of the batch the current held version of its UID: the previous current versions
 * step back, and the batch's records are inserted as new versions (voids as Voided in submission).
 * Two statements over the whole batch, inside the caller's transaction; the second also adds the versions
 * In submission to the activity reported per period and type (reported_activity, the console's chart).
 * Returns the versions written.
 * Cross-module read, on purpose: promotion (and recordReportingPeriods below) reads the view batches
 * publishes for it (batch_content, never its table), set-based, instead of copying every record
 * through the batches module
 * (docs/decisions.md, "Architecture: shared kernel and module boundaries").
 */
export async function promoteBatch(
  db: Executor,
  p: Promotion,
): Promise<{ records: number; voidedByType: Record<string, number> }> {
  await sql`
    UPDATE held_record h SET is_current = false
      FROM batch_content b
     WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}
       AND h.rto_id = b.rto_id AND h.resource_type = b.resource_type AND h.resource_uid = b.resource_uid AND h.is_current`.execute(
    db,
  )
  const inserted = await sql<{ records: number; voided_by_type: unknown }>`
    WITH promoted AS (
    INSERT INTO held_record (rto_id, resource_type, resource_uid, submission_seq, is_current, state_in_submission, voided_reason,
      jurisdiction, transaction_batch_token, submitted_by_client, submitted_at, change_tracking_identifier, student_activity_date, body)
    SELECT b.rto_id, b.resource_type, b.resource_uid, ${p.submissionSeq}::bigint, true,
           CASE WHEN b.is_voided THEN 'Voided in submission' ELSE 'In submission' END,
           CASE WHEN b.is_voided THEN b.body->>'voidedReason' END,
           ${p.jurisdiction}, b.transaction_batch_token, ${p.clientId}, ${p.submittedAt}::timestamptz, b.change_tracking_identifier,
           (SELECT max(l.value->>'studentActivityDate') FROM jsonb_array_elements(
              CASE WHEN jsonb_typeof(b.body->'lifecycle') = 'array' THEN b.body->'lifecycle' ELSE '[]'::jsonb END) AS l(value))::date,
           b.body
      FROM batch_content b
     WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}
    RETURNING resource_type, state_in_submission, student_activity_date),
    counted AS (
    INSERT INTO reported_activity (rto_id, jurisdiction, reporting_period, resource_type, records)
    SELECT ${p.rto}, ${p.jurisdiction}, (extract(year FROM d) * 100 + extract(quarter FROM d))::int, resource_type, count(*)
      FROM (SELECT resource_type, coalesce(student_activity_date, (${p.submittedAt}::timestamptz AT TIME ZONE 'UTC')::date) AS d
              FROM promoted WHERE state_in_submission = 'In submission') AS a
     GROUP BY 3, 4
    ON CONFLICT (rto_id, jurisdiction, reporting_period, resource_type)
    DO UPDATE SET records = reported_activity.records + excluded.records)
    SELECT count(*)::int AS records,
           coalesce((SELECT jsonb_object_agg(v.resource_type, v.n)
                       FROM (SELECT resource_type, count(*)::int AS n FROM promoted
                              WHERE state_in_submission = 'Voided in submission' GROUP BY 1) v), '{}'::jsonb) AS voided_by_type
      FROM promoted`.execute(db)
  const row = inserted.rows[0]!
  const voided = row.voided_by_type
  return {
    records: row.records,
    voidedByType: (typeof voided === 'string' ? JSON.parse(voided) : voided) as Record<string, number>,
  }
}

/**
 * Leaves the signal data quality assessments read: the reporting periods this submission touched
 * (every lifecycle date of its enrolments, and the period it was submitted in), with when.
 * `activityPeriods`: the lifecycle dates' periods as the batch's validation found them (validation's
 * submitReadiness); without them every body of the batch is read for its dates (485 ms at 100,000
 * records on the embedded database, in the submit's transaction).
 */
export async function recordReportingPeriods(
  db: Executor,
  p: Promotion,
  firstPeriod: number,
  activityPeriods?: readonly number[],
): Promise<void> {
  const periodOf = (d: RawBuilder<unknown>) => sql`(extract(year FROM ${d}) * 100 + extract(quarter FROM ${d}))::int`
  const submittedIn = periodOf(sql`(${p.submittedAt}::timestamptz AT TIME ZONE 'UTC')::date`)
  const periods = activityPeriods
    ? sql`SELECT unnest(${integerArray(activityPeriods)}) AS period UNION SELECT ${submittedIn}`
    : sql`
      SELECT DISTINCT ${periodOf(sql`d`)} AS period
        FROM (SELECT (l.value->>'studentActivityDate')::date AS d
                FROM batch_content b CROSS JOIN LATERAL jsonb_array_elements(
                       CASE WHEN jsonb_typeof(b.body->'lifecycle') = 'array' THEN b.body->'lifecycle' ELSE '[]'::jsonb END) AS l(value)
               WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}
              UNION SELECT (${p.submittedAt}::timestamptz AT TIME ZONE 'UTC')::date) AS dates`
  await sql`
    INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
    SELECT ${p.rto}, ${p.jurisdiction}, period, ${p.submittedAt}::timestamptz, ${p.submissionSeq}::bigint
      FROM (${periods}) AS periods
     WHERE period >= ${firstPeriod}
    ON CONFLICT (rto_id, jurisdiction, reporting_period)
    DO UPDATE SET last_submitted_at = excluded.last_submitted_at, last_submission_seq = excluded.last_submission_seq`.execute(
    db,
  )
  // The kept latest mark of the RTO under the jurisdiction (the operators' lists read it): the marks
  // just written, read again, so it equals a fresh max() over them whatever order times come in.
  await sql`
    INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
    SELECT rto_id, jurisdiction, max(last_submitted_at)
      FROM reporting_period_submission
     WHERE rto_id = ${p.rto} AND jurisdiction = ${p.jurisdiction}
     GROUP BY rto_id, jurisdiction
    ON CONFLICT (rto_id, jurisdiction) DO UPDATE SET last_submitted_at = excluded.last_submitted_at`.execute(db)
}

// The reads, by record and by submission, live beside this file; what imports the repository as one
// (`import * as holdings`) finds them here too.
export * from './held-records.repo.ts'
export * from './held-reporting.repo.ts'
