// SQL for declarations. Every statement is scoped by the caller's RTO; rows are never deleted, and the
// previous current declaration of a period only loses is_current.
import { sql, type Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import type { DeclarationType } from './due-dates.ts'
import {
  programEnrolmentsInPeriod,
  studentsInPeriod,
  subjectEnrolmentsInPeriod,
  type AssessmentScope,
} from '../assessment/index.ts'

export interface DeclarationTable {
  rto_id: string
  declaration_id: string
  jurisdiction: string
  reporting_period: number
  declaration_type: DeclarationType
  date_of_last_reportable_activity: string | null
  rto_user_name: string
  rto_user_email_address: string
  declared_by_client: string
  declared_at: Date
  assessment_run_id: string
  is_current: boolean
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    declaration: DeclarationTable
  }
}

export type DeclarationRow = Selectable<DeclarationTable>

/** The columns of a DeclarationRow, the last reportable activity date as 'YYYY-MM-DD'. */
const DECLARATION_ROW = [
  'rto_id',
  'declaration_id',
  'jurisdiction',
  'reporting_period',
  'declaration_type',
  sql<string | null>`to_char(date_of_last_reportable_activity, 'YYYY-MM-DD')`.as('date_of_last_reportable_activity'),
  'rto_user_name',
  'rto_user_email_address',
  'declared_by_client',
  'declared_at',
  'assessment_run_id',
  'is_current',
] as const

/** Inserts the declaration as the period's current one; the one it supersedes stays, no longer current. */
export async function insertCurrent(
  db: Executor,
  row: Omit<DeclarationTable, 'is_current' | 'declared_at'>,
): Promise<{ saved: DeclarationRow; superseded: string[] }> {
  const superseded = await db
    .updateTable('declaration')
    .set({ is_current: false })
    .where('rto_id', '=', row.rto_id)
    .where('jurisdiction', '=', row.jurisdiction)
    .where('reporting_period', '=', row.reporting_period)
    .where('is_current', '=', true)
    .returning('declaration_id')
    .execute()
  const saved = await db
    .insertInto('declaration')
    .values({ ...row, is_current: true, declared_at: sql`clock_timestamp()` })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { saved, superseded: superseded.map((r) => r.declaration_id) }
}

export async function declarationsOf(
  db: Executor,
  rto: string,
  periods: number[],
  jurisdiction: string | undefined,
  includeSuperseded: boolean,
): Promise<DeclarationRow[]> {
  let query = db
    .selectFrom('declaration')
    .select(DECLARATION_ROW)
    .where('rto_id', '=', rto)
    .where('reporting_period', 'in', periods)
  if (jurisdiction) query = query.where('jurisdiction', '=', jurisdiction)
  if (!includeSuperseded) query = query.where('is_current', '=', true)
  return query.orderBy('declared_at', 'desc').execute()
}

/**
 * Across every RTO (an operator's read): the current declarations of the periods under a jurisdiction
 * (declaration_current_by_period), and every RTO that has ever declared under the jurisdiction
 * (declaration_by_jurisdiction, index only).
 */
export async function currentDeclarationsAcrossRtos(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
): Promise<{ declarations: DeclarationRow[]; declaredRtos: string[] }> {
  const [declarations, declared] = await Promise.all([
    db
      .selectFrom('declaration')
      .select(DECLARATION_ROW)
      .where('jurisdiction', '=', jurisdiction)
      .where('reporting_period', '=', sql<number>`ANY(${[...periods]}::int[])`)
      .where('is_current', '=', true)
      .execute(),
    db.selectFrom('declaration').select('rto_id').distinct().where('jurisdiction', '=', jurisdiction).execute(),
  ])
  return { declarations, declaredRtos: declared.map((row) => row.rto_id) }
}

/** Every RTO that has declared under the jurisdiction (any period, superseded too), in no order. */
export async function declaredRtos(db: Executor, jurisdiction: string): Promise<string[]> {
  const rows = await db
    .selectFrom('declaration')
    .select('rto_id')
    .distinct()
    .where('jurisdiction', '=', jurisdiction)
    .execute()
  return rows.map((row) => row.rto_id)
}

/** Per period, how many RTOs have a current declaration under the jurisdiction (counted in the database). */
export async function currentDeclarationCounts(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('declaration')
    .select(['reporting_period', sql<number>`count(DISTINCT rto_id)::int`.as('n')])
    .where('jurisdiction', '=', jurisdiction)
    .where('reporting_period', '=', sql<number>`ANY(${[...periods]}::int[])`)
    .where('is_current', '=', true)
    .groupBy('reporting_period')
    .execute()
  return new Map(rows.map((row) => [row.reporting_period, row.n]))
}

/** The current declarations of these RTOs (a page of the collection, the RTOs with extensions) for the periods. */
export async function currentDeclarationsOfRtos(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
  rtos: readonly string[],
): Promise<DeclarationRow[]> {
  if (rtos.length === 0) return []
  return db
    .selectFrom('declaration')
    .select(DECLARATION_ROW)
    .where('jurisdiction', '=', jurisdiction)
    .where('reporting_period', '=', sql<number>`ANY(${[...periods]}::int[])`)
    .where('rto_id', '=', sql<string>`ANY(${[...rtos]}::text[])`)
    .where('is_current', '=', true)
    .execute()
}

/** The jurisdictions the RTO has declared for. */
export async function declaredJurisdictions(db: Executor, rto: string): Promise<string[]> {
  const rows = await db.selectFrom('declaration').select('jurisdiction').distinct().where('rto_id', '=', rto).execute()
  return rows.map((row) => row.jurisdiction)
}

/** A held enrolment with activity in a period: what makes a nil activity report untrue. */
export interface HeldActivity {
  resource_type: 'SubjectEnrolment' | 'ProgramEnrolment'
  resource_uid: string
  change_tracking_identifier: string | null
  /** The earliest lifecycle state dated in the period (YYYY-MM-DD), if any. */
  first_state_date: string | null
  activity_start_date: string | null
  activity_end_date: string | null
  total: number
}

/**
 * Reportable activity the RTO holds for a period under a jurisdiction, as the assessment counts it:
 * enrolments in submission reported under the jurisdiction with a lifecycle state dated in the
 * period, subject enrolments whose training overlaps it, and program enrolments of those. The first
 * few by date, each with the total. Reads holdings' held_in_submission through assessment's SQL blocks, one
 * query (a cross-module read on purpose: docs/decisions.md, "Architecture: shared kernel and module
 * boundaries").
 */
export async function heldActivityInPeriod(
  db: Executor,
  scope: AssessmentScope,
  limit: number,
): Promise<HeldActivity[]> {
  const firstState = (alias: string) => sql`(
    SELECT min(l.value->>'studentActivityDate') FROM jsonb_array_elements(${sql.raw(alias)}.body->'lifecycle') AS l(value)
     WHERE l.value->>'studentActivityDate' BETWEEN ${scope.periodStart} AND ${scope.periodEnd})`
  const result = await sql<HeldActivity>`
    WITH activity AS (
      SELECT 'SubjectEnrolment' AS resource_type, se.uid AS resource_uid, se.ctid AS change_tracking_identifier, ${firstState('se')} AS first_state_date,
             se.body->>'activityStartDate' AS activity_start_date, se.body->>'activityEndDate' AS activity_end_date
        FROM ${subjectEnrolmentsInPeriod(scope)} AS se
      UNION ALL
      SELECT 'ProgramEnrolment', pe.uid, pe.ctid, ${firstState('pe')}, NULL, NULL
        FROM ${programEnrolmentsInPeriod(scope)} AS pe)
    SELECT resource_type, resource_uid::text AS resource_uid, change_tracking_identifier, first_state_date, activity_start_date, activity_end_date,
           (count(*) OVER ())::int AS total
      FROM activity
     ORDER BY coalesce(first_state_date, greatest(activity_start_date, ${scope.periodStart})), resource_type DESC, resource_uid
     LIMIT ${limit}`.execute(db)
  return result.rows
}

/** The activity held for a period under a jurisdiction, by type (what a declaration covers). */
export interface PeriodActivity {
  subjectEnrolments: number
  programEnrolments: number
  students: number
}

/**
 * How much reportable activity the RTO holds for the period, counted as the assessment and the nil
 * activity check see it (assessment's SQL blocks over holdings' held_in_submission), one query.
 */
export async function activityInPeriod(db: Executor, scope: AssessmentScope): Promise<PeriodActivity> {
  const result = await sql<PeriodActivity>`
    SELECT (SELECT count(*) FROM ${subjectEnrolmentsInPeriod(scope)} AS se)::int AS "subjectEnrolments",
           (SELECT count(*) FROM ${programEnrolmentsInPeriod(scope)} AS pe)::int AS "programEnrolments",
           (SELECT count(*) FROM ${studentsInPeriod(scope)} AS st)::int AS "students"`.execute(db)
  return result.rows[0]!
}
