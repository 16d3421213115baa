// SQL for declarations. Every statement is scoped by the caller's RTO; rows are never deleted, and the
// previous current declaration of a period only loses is_current.
import { sql, type Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import type { DeclarationType } from './due-dates.ts'

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

/** Inserts the declaration as the period's current one; the one it supersedes stays, no longer current. */
export async function insertCurrent(db: Executor, row: Omit<DeclarationTable, 'is_current' | 'declared_at'>): Promise<DeclarationRow> {
  await db.updateTable('declaration').set({ is_current: false })
    .where('rto_id', '=', row.rto_id).where('jurisdiction', '=', row.jurisdiction).where('reporting_period', '=', row.reporting_period).where('is_current', '=', true)
    .execute()
  return db.insertInto('declaration').values({ ...row, is_current: true, declared_at: sql`clock_timestamp()` })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function declarationsOf(db: Executor, rto: string, periods: number[], jurisdiction: string | undefined, includeSuperseded: boolean): Promise<DeclarationRow[]> {
  let query = db.selectFrom('declaration')
    .select(['rto_id', 'declaration_id', 'jurisdiction', 'reporting_period', 'declaration_type', sql<string | null>`to_char(date_of_last_reportable_activity, 'YYYY-MM-DD')`.as('date_of_last_reportable_activity'),
      'rto_user_name', 'rto_user_email_address', 'declared_by_client', 'declared_at', 'assessment_run_id', 'is_current'])
    .where('rto_id', '=', rto).where('reporting_period', 'in', periods)
  if (jurisdiction) query = query.where('jurisdiction', '=', jurisdiction)
  if (!includeSuperseded) query = query.where('is_current', '=', true)
  return query.orderBy('declared_at', 'desc').execute()
}

/** The jurisdictions the RTO has submitted data under or declared for: the rows of a listing without a jurisdiction filter. */
export async function knownJurisdictions(db: Executor, rto: string): Promise<string[]> {
  const result = await sql<{ jurisdiction: string }>`
    SELECT jurisdiction FROM reporting_period_submission WHERE rto_id = ${rto}
    UNION SELECT jurisdiction FROM declaration WHERE rto_id = ${rto}`.execute(db)
  return result.rows.map((row) => row.jurisdiction)
}
