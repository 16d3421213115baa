// SQL that reads what was submitted when and under which jurisdiction (the submission marks, the RTOs
// holding data, the activity reported per period): the held dataset's reads by submission, for the
// reports and the console. Owned by holdings, as its tables are.
import { sql } from 'kysely'
import type { Executor, ReadDb } from '../../platform/db/database.ts'

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
