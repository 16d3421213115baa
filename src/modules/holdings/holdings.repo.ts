// SQL for the held dataset: every submitted version of every record, per RTO. Rows are only ever
// inserted, and the previous current version of a UID loses is_current, so history stays for audit.
import { sql, type Selectable } from 'kysely'
import type { Executor, ReadDb, Reader } from '../../platform/db/database.ts'

export type StateInSubmission = 'In submission' | 'Voided in submission' | 'Not found in submission'

export interface HeldRecordTable {
  rto_id: string
  resource_type: string
  resource_uid: string
  submission_seq: string
  is_current: boolean
  state_in_submission: Exclude<StateInSubmission, 'Not found in submission'>
  voided_reason: string | null
  jurisdiction: string
  transaction_batch_token: string
  submitted_by_client: string
  submitted_at: Date
  change_tracking_identifier: string | null
  student_activity_date: string | null
  body: unknown
}

/** Versions submitted In submission, per jurisdiction, period of their latest activity, and type. */
export interface ReportedActivityTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  resource_type: string
  records: string
}

export interface ReportingPeriodSubmissionTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  last_submitted_at: Date
  last_submission_seq: string
}

/** Per RTO and jurisdiction, the latest of its submission marks (migration 0035): kept by recordReportingPeriods. */
export interface RtoJurisdictionSubmissionTable {
  rto_id: string
  jurisdiction: string
  last_submitted_at: Date
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    held_record: HeldRecordTable
    reporting_period_submission: ReportingPeriodSubmissionTable
    rto_jurisdiction_submission: RtoJurisdictionSubmissionTable
    reported_activity: ReportedActivityTable
  }
}

/**
 * The views holdings publishes for other modules' SQL (migrations/0020_published_views.ts), for
 * Kysely's `withTables`: they are not tables, so they stay out of Database and its placement list.
 */
export type HoldingsViews = {
  period_last_submission: ReportingPeriodSubmissionTable
}

export type HeldRecordRow = Selectable<HeldRecordTable>

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
 */
export async function recordReportingPeriods(db: Executor, p: Promotion, firstPeriod: number): Promise<void> {
  await sql`
    INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
    SELECT ${p.rto}, ${p.jurisdiction}, period, ${p.submittedAt}::timestamptz, ${p.submissionSeq}::bigint
      FROM (SELECT DISTINCT (extract(year FROM d) * 100 + extract(quarter FROM d))::int AS period
              FROM (SELECT (l.value->>'studentActivityDate')::date AS d
                      FROM batch_content b CROSS JOIN LATERAL jsonb_array_elements(
                             CASE WHEN jsonb_typeof(b.body->'lifecycle') = 'array' THEN b.body->'lifecycle' ELSE '[]'::jsonb END) AS l(value)
                     WHERE b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}
                    UNION SELECT (${p.submittedAt}::timestamptz AT TIME ZONE 'UTC')::date) AS dates) AS periods
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

export async function currentVersion(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
): Promise<HeldRecordRow | undefined> {
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .where('is_current', '=', true)
    .executeTakeFirst()
}

export async function countVersions(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
): Promise<number> {
  const row = await db
    .selectFrom('held_record')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** The jurisdictions the RTO has submitted data under. */
export async function submittedJurisdictions(db: Executor, rto: string): Promise<string[]> {
  const rows = await db
    .selectFrom('reporting_period_submission')
    .select('jurisdiction')
    .distinct()
    .where('rto_id', '=', rto)
    .execute()
  return rows.map((row) => row.jurisdiction)
}

/**
 * Across every RTO (an operator's read): the RTOs that have submitted data under the jurisdiction (the
 * kept rto_jurisdiction_submission, one row each), and each mark of the periods asked for under it
 * (by the index on jurisdiction and period): two index reads, never a GROUP BY over every mark.
 */
export async function submissionsUnderJurisdiction(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
): Promise<{
  rtos: string[]
  marks: { rto_id: string; reporting_period: number; last_submitted_at: Date }[]
}> {
  const [rtos, marks] = await Promise.all([
    sql<{ rto_id: string }>`
      SELECT rto_id FROM rto_jurisdiction_submission WHERE jurisdiction = ${jurisdiction} ORDER BY rto_id`.execute(db),
    sql<{ rto_id: string; reporting_period: number; last_submitted_at: Date }>`
      SELECT rto_id, reporting_period, last_submitted_at
        FROM reporting_period_submission
       WHERE jurisdiction = ${jurisdiction} AND reporting_period = ANY(${[...periods]}::int[])`.execute(db),
  ])
  return { rtos: rtos.rows.map((row) => row.rto_id), marks: marks.rows }
}

/**
 * The collection's totals and one page of it (issue 32, "Performance": the page read every mark of
 * seven periods, 28,000 at 4,000 RTOs, and made a standing of each): per period, how many RTOs have a
 * mark (one row per RTO, jurisdiction and period: counted on the index by jurisdiction and period).
 */
export async function submissionCountsUnderJurisdiction(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
): Promise<Map<number, number>> {
  const result = await sql<{ reporting_period: number; n: number }>`
    SELECT reporting_period, count(*)::int AS n FROM reporting_period_submission
     WHERE jurisdiction = ${jurisdiction} AND reporting_period = ANY(${[...periods]}::int[])
     GROUP BY reporting_period`.execute(db)
  return new Map(result.rows.map((row) => [row.reporting_period, row.n]))
}

/** Every RTO that has submitted under the jurisdiction (any period), in code order: one kept row each. */
export async function rtosReportingUnder(db: Executor, jurisdiction: string): Promise<string[]> {
  const result = await sql<{ rto_id: string }>`
    SELECT rto_id FROM rto_jurisdiction_submission WHERE jurisdiction = ${jurisdiction} ORDER BY rto_id`.execute(db)
  return result.rows.map((row) => row.rto_id)
}

/** The marks of these RTOs (a page of the collection) for one period. */
export async function marksOfRtos(
  db: Executor,
  jurisdiction: string,
  period: number,
  rtos: readonly string[],
): Promise<{ rto_id: string; last_submitted_at: Date }[]> {
  if (rtos.length === 0) return []
  const result = await sql<{ rto_id: string; last_submitted_at: Date }>`
    SELECT rto_id, last_submitted_at FROM reporting_period_submission
     WHERE jurisdiction = ${jurisdiction} AND reporting_period = ${period} AND rto_id = ANY(${[...rtos]}::text[])`.execute(
    db,
  )
  return result.rows
}

/**
 * Across every RTO (an operator's read, and the declarations' due-date notices): each RTO, jurisdiction
 * and period data touching it was submitted under, periods from `firstPeriod`. A few rows per RTO.
 */
export async function reportedPeriodsAcrossRtos(
  db: Executor,
  firstPeriod: number,
): Promise<{ rto_id: string; jurisdiction: string; reporting_period: number }[]> {
  const result = await sql<{ rto_id: string; jurisdiction: string; reporting_period: number }>`
    SELECT rto_id, jurisdiction, reporting_period
      FROM reporting_period_submission
     WHERE reporting_period >= ${firstPeriod}
     ORDER BY rto_id, jurisdiction, reporting_period`.execute(db)
  return result.rows
}

/**
 * The code of every RTO that holds submitted data, in code order (an operator's list of RTOs): read from
 * the kept rows' primary key alone, without when each submitted, which only a page's RTOs need
 * (rtosHoldingDataOf): aggregating every RTO's latest submission and sending thousands of timestamps
 * per view cost the unsearched list most of its time.
 */
export async function rtoCodesHoldingData(db: Executor): Promise<string[]> {
  const result = await sql<{ rto_id: string }>`
    SELECT DISTINCT rto_id FROM rto_jurisdiction_submission ORDER BY rto_id`.execute(db)
  return result.rows.map((row) => row.rto_id)
}

/** When each of the named RTOs that holds submitted data last submitted (a page of the operator's list). */
export async function rtosHoldingDataOf(
  db: Executor,
  rtos: readonly string[],
): Promise<{ rto_id: string; last_submitted_at: Date }[]> {
  const result = await sql<{ rto_id: string; last_submitted_at: Date }>`
    SELECT rto_id, max(last_submitted_at) AS last_submitted_at
      FROM rto_jurisdiction_submission
     WHERE rto_id = ANY(${[...rtos]}::text[])
     GROUP BY rto_id`.execute(db)
  return result.rows
}

/** When each RTO holding data whose code starts with the text (case aside, taken literally), or that is named, last submitted. */
export async function rtosHoldingDataMatching(
  db: Executor,
  text: string,
  rtos: readonly string[],
): Promise<{ rto_id: string; last_submitted_at: Date }[]> {
  const literal = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
  const result = await sql<{ rto_id: string; last_submitted_at: Date }>`
    SELECT rto_id, max(last_submitted_at) AS last_submitted_at
      FROM rto_jurisdiction_submission
     WHERE lower(rto_id) LIKE ${`${literal}%`} OR rto_id = ANY(${[...rtos]}::text[])
     GROUP BY rto_id`.execute(db)
  return result.rows
}

export interface HeldRecordsQuery {
  rto: string
  resourceType: string
  /** Only UIDs after this one (exclusive): the cursor of keyset paging. */
  after?: string
  /** Only these UIDs (lower case). */
  uids?: readonly string[]
  limit: number
}

/**
 * The current, not voided, versions of one resource type of the RTO, in UID order, after the cursor.
 * Keyset paging on the index of current versions (rto, type, uid WHERE is_current): each page costs
 * the rows it returns, however deep, where an offset would read every row before it again.
 */
export async function heldRecordsPage(
  db: ReadDb,
  q: HeldRecordsQuery,
): Promise<
  Pick<HeldRecordRow, 'resource_uid' | 'change_tracking_identifier' | 'submitted_at' | 'jurisdiction' | 'body'>[]
> {
  let query = db
    .selectFrom('held_record')
    .select(['resource_uid', 'change_tracking_identifier', 'submitted_at', 'jurisdiction', 'body'])
    .where('rto_id', '=', q.rto)
    .where('resource_type', '=', q.resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
  if (q.after !== undefined) query = query.where('resource_uid', '>', q.after)
  if (q.uids !== undefined) query = query.where('resource_uid', 'in', [...q.uids])
  return query.orderBy('resource_uid').limit(q.limit).execute()
}

/** The current, not voided, bodies of these UIDs of one type of the RTO (those it holds). */
export async function heldBodies(
  db: Reader,
  rto: string,
  resourceType: string,
  uids: readonly string[],
): Promise<{ resource_uid: string; body: unknown }[]> {
  if (uids.length === 0) return []
  return db
    .selectFrom('held_record')
    .select(['resource_uid', 'body'])
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
    .where('resource_uid', 'in', [...uids])
    .execute()
}

/** How many current, not voided, records of the type the RTO holds. */
export async function countHeldRecords(
  db: ReadDb,
  rto: string,
  resourceType: string,
  uids?: readonly string[],
): Promise<number> {
  let query = db
    .selectFrom('held_record')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
  if (uids !== undefined) query = query.where('resource_uid', 'in', [...uids])
  const row = await query.executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * When the RTO last submitted, or null: every submission records the period it was submitted in, so
 * the latest of those is the latest submission, read from a few rows rather than from every version.
 */
export async function latestSubmissionAt(db: ReadDb, rto: string): Promise<Date | null> {
  const row = await db
    .selectFrom('reporting_period_submission')
    .select((eb) => eb.fn.max('last_submitted_at').as('at'))
    .where('rto_id', '=', rto)
    .executeTakeFirst()
  return row?.at ? new Date(row.at) : null
}

/** One row of reporting_period_submission: when the RTO last submitted data touching a jurisdiction and period. */
export interface SubmissionMark {
  jurisdiction: string
  reporting_period: number
  last_submitted_at: Date
  last_submission_seq: string
}

/**
 * The RTO's submission marks (a few rows per jurisdiction and period, by the table's key). Every
 * promotion rewrites at least one of them with its own new submission number, in its transaction
 * (recordReportingPeriods: the period it was submitted in is always one), so they change whenever the
 * RTO's held records do.
 */
export async function submissionMarks(db: Executor, rto: string, firstPeriod: number): Promise<SubmissionMark[]> {
  const result = await sql<SubmissionMark>`
    SELECT jurisdiction, reporting_period, last_submitted_at, last_submission_seq::text AS last_submission_seq
      FROM reporting_period_submission
     WHERE rto_id = ${rto} AND reporting_period >= ${firstPeriod}`.execute(db)
  return result.rows
}

export interface EnrolmentsHeldRow {
  jurisdiction: string
  reporting_period: number
  enrolments_held: number
}

/**
 * Per jurisdiction and reporting period: how many enrolments the RTO holds (current, not voided) whose
 * latest activity date falls in it. One pass over the RTO's current enrolments (0.1 to 0.8 s at
 * 100,000 held records on the embedded database; holdings.service keeps it per RTO until the
 * submission marks change). Periods before `firstPeriod` are left out.
 */
export async function enrolmentsHeldByPeriod(
  db: Executor,
  rto: string,
  firstPeriod: number,
): Promise<EnrolmentsHeldRow[]> {
  const result = await sql<EnrolmentsHeldRow>`
    SELECT jurisdiction, period AS reporting_period, count(*)::int AS enrolments_held
      FROM (SELECT jurisdiction, (extract(year FROM student_activity_date) * 100 + extract(quarter FROM student_activity_date))::int AS period
              FROM held_in_submission
             WHERE rto_id = ${rto}
               AND resource_type IN ('ProgramEnrolment', 'SubjectEnrolment') AND student_activity_date IS NOT NULL) AS e
     WHERE period >= ${firstPeriod}
     GROUP BY 1, 2`.execute(db)
  return result.rows
}

/**
 * The keys a current held version is found by (people's names, client identifier, USI, unit and
 * program codes, a location's identifier), each `<rto>:<lower-case value>`: the expression of the
 * index held_record_search (migrations/0024_held_record_search.ts), written identically.
 */
const HELD_SEARCH_KEYS = sql`ARRAY[
      rto_id || ':' || lower(body->>'clientIdentifier'),
      rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
      rto_id || ':' || lower(body->>'familyName'),
      rto_id || ':' || lower(body->>'firstGivenName'),
      rto_id || ':' || lower(body->>'subjectIdentifier'),
      rto_id || ':' || lower(body->>'programIdentifier'),
      rto_id || ':' || lower(body->>'deliveryLocationIdentifier')
    ]`

/** Current held versions of the RTO whose keys include every word, newest submission first. */
export async function searchCurrent(db: ReadDb, rto: string, words: string[], limit: number): Promise<HeldRecordRow[]> {
  const keys = words.map((word) => `${rto}:${word.toLowerCase()}`)
  // The RTO is in every key, so the index alone scopes the search to it; an rto_id condition beside
  // it would make the planner AND in the primary key's thousands of rows of the RTO for nothing.
  // Every row is checked again against the RTO below all the same.
  const rows = await db
    .selectFrom('held_record')
    .selectAll()
    .where('is_current', '=', true)
    .where(sql<boolean>`${HELD_SEARCH_KEYS} @> ${keys}::text[]`)
    .orderBy('submitted_at', 'desc')
    .orderBy('resource_type')
    .orderBy('resource_uid')
    .limit(limit)
    .execute()
  return rows.filter((row) => row.rto_id === rto)
}

/** The record's held versions, newest first (at most `limit`). */
export async function versionsOf(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
  limit: number,
): Promise<HeldRecordRow[]> {
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .orderBy('submission_seq', 'desc')
    .limit(limit)
    .execute()
}

/** The current versions of the named records of the RTO (those it holds), in one read. */
export async function currentVersionsOf(
  db: Reader,
  rto: string,
  keys: { resourceType: string; resourceUID: string }[],
): Promise<HeldRecordRow[]> {
  if (keys.length === 0) return []
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('is_current', '=', true)
    .where((eb) =>
      eb.or(
        keys.map((key) =>
          eb.and([eb('resource_type', '=', key.resourceType), eb('resource_uid', '=', key.resourceUID)]),
        ),
      ),
    )
    .execute()
}

export interface ReportedActivityRow {
  jurisdiction: string
  reporting_period: number
  resource_type: string
  records: string
}

/** The RTO's activity reported per jurisdiction, period and type, from `firstPeriod` on (a few hundred rows at most). */
export async function reportedActivity(db: ReadDb, rto: string, firstPeriod: number): Promise<ReportedActivityRow[]> {
  return db
    .selectFrom('reported_activity')
    .select(['jurisdiction', 'reporting_period', 'resource_type', 'records'])
    .where('rto_id', '=', rto)
    .where('reporting_period', '>=', firstPeriod)
    .orderBy('reporting_period')
    .orderBy('jurisdiction')
    .orderBy('resource_type')
    .execute()
}
