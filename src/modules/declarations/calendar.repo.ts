// SQL for the collection calendar: a period's due date set by an operator (collection_due_date), an
// RTO's extension (declaration_extension), and the due-date notices already recorded as events
// (declaration_due_notice). Owned by declarations; parameterised statements only.
import { sql } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'

export interface CollectionDueDateTable {
  jurisdiction: string
  reporting_period: number
  due_date: string
  reason: string
  set_by: string
  set_at: Date
}

export interface DeclarationExtensionTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  due_date: string
  reason: string
  granted_by: string
  granted_at: Date
}

export interface DeclarationDueNoticeTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  kind: 'due-soon' | 'overdue'
  due_date: string
  recorded_at: Date
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    collection_due_date: CollectionDueDateTable
    declaration_extension: DeclarationExtensionTable
    declaration_due_notice: DeclarationDueNoticeTable
  }
}

export interface DueDateRow {
  jurisdiction: string
  reporting_period: number
  due_date: string
  reason: string
  set_by: string
  set_at: Date
}

export interface ExtensionRow {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  due_date: string
  reason: string
  granted_by: string
  granted_at: Date
}

/** The due dates operators set for these periods (every jurisdiction, or one). */
export async function dueDatesOf(db: Executor, periods: number[], jurisdiction?: string): Promise<DueDateRow[]> {
  if (periods.length === 0) return []
  const result = await sql<DueDateRow>`
    SELECT jurisdiction, reporting_period, to_char(due_date, 'YYYY-MM-DD') AS due_date, reason, set_by, set_at
      FROM collection_due_date
     WHERE reporting_period IN (${sql.join(periods)})
       ${jurisdiction === undefined ? sql`` : sql`AND jurisdiction = ${jurisdiction}`}`.execute(db)
  return result.rows
}

/** The extensions of these periods: of one RTO, or of every RTO (an operator's read), of one jurisdiction or all. */
export async function extensionsOf(
  db: Executor,
  periods: number[],
  filter: { rto?: string | undefined; jurisdiction?: string | undefined },
): Promise<ExtensionRow[]> {
  if (periods.length === 0) return []
  const result = await sql<ExtensionRow>`
    SELECT rto_id, jurisdiction, reporting_period, to_char(due_date, 'YYYY-MM-DD') AS due_date, reason, granted_by, granted_at
      FROM declaration_extension
     WHERE reporting_period IN (${sql.join(periods)})
       ${filter.rto === undefined ? sql`` : sql`AND rto_id = ${filter.rto}`}
       ${filter.jurisdiction === undefined ? sql`` : sql`AND jurisdiction = ${filter.jurisdiction}`}
     ORDER BY reporting_period DESC, jurisdiction, rto_id`.execute(db)
  return result.rows
}

export async function setDueDate(
  db: Executor,
  row: { jurisdiction: string; period: number; dueDate: string; reason: string; by: string },
): Promise<void> {
  await sql`
    INSERT INTO collection_due_date (jurisdiction, reporting_period, due_date, reason, set_by, set_at)
    VALUES (${row.jurisdiction}, ${row.period}, ${row.dueDate}::date, ${row.reason}, ${row.by}, now())
    ON CONFLICT (jurisdiction, reporting_period)
    DO UPDATE SET due_date = excluded.due_date, reason = excluded.reason, set_by = excluded.set_by, set_at = excluded.set_at`.execute(
    db,
  )
}

/** Removes a period's set due date (the spec's rule applies again); whether there was one. */
export async function clearDueDate(db: Executor, jurisdiction: string, period: number): Promise<boolean> {
  const result = await db
    .deleteFrom('collection_due_date')
    .where('jurisdiction', '=', jurisdiction)
    .where('reporting_period', '=', period)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function grantExtension(
  db: Executor,
  row: { rto: string; jurisdiction: string; period: number; dueDate: string; reason: string; by: string },
): Promise<void> {
  await sql`
    INSERT INTO declaration_extension (rto_id, jurisdiction, reporting_period, due_date, reason, granted_by, granted_at)
    VALUES (${row.rto}, ${row.jurisdiction}, ${row.period}, ${row.dueDate}::date, ${row.reason}, ${row.by}, now())
    ON CONFLICT (rto_id, jurisdiction, reporting_period)
    DO UPDATE SET due_date = excluded.due_date, reason = excluded.reason, granted_by = excluded.granted_by, granted_at = excluded.granted_at`.execute(
    db,
  )
}

/** Withdraws an RTO's extension of a period; whether there was one. */
export async function withdrawExtension(
  db: Executor,
  rto: string,
  jurisdiction: string,
  period: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('declaration_extension')
    .where('rto_id', '=', rto)
    .where('jurisdiction', '=', jurisdiction)
    .where('reporting_period', '=', period)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Records a notice once: true when this call recorded it, false when it was recorded before. */
export async function recordNotice(
  db: Executor,
  notice: { rto: string; jurisdiction: string; period: number; kind: 'due-soon' | 'overdue'; dueDate: string },
): Promise<boolean> {
  const result = await sql<{ rto_id: string }>`
    INSERT INTO declaration_due_notice (rto_id, jurisdiction, reporting_period, kind, due_date)
    VALUES (${notice.rto}, ${notice.jurisdiction}, ${notice.period}, ${notice.kind}, ${notice.dueDate}::date)
    ON CONFLICT DO NOTHING
    RETURNING rto_id`.execute(db)
  return result.rows.length > 0
}

/** Every notice already recorded for these periods, as `rto/jurisdiction/period/kind/dueDate` keys. */
export async function noticesOf(db: Executor, periods: number[]): Promise<Set<string>> {
  if (periods.length === 0) return new Set()
  const result = await sql<{ key: string }>`
    SELECT concat_ws('/', rto_id, jurisdiction, reporting_period, kind, to_char(due_date, 'YYYY-MM-DD')) AS key
      FROM declaration_due_notice WHERE reporting_period IN (${sql.join(periods)})`.execute(db)
  return new Set(result.rows.map((row) => row.key))
}

/** The RTOs with a current declaration, per jurisdiction and period, for these periods (across RTOs). */
export async function declaredAcrossRtos(
  db: Executor,
  firstPeriod: number,
): Promise<{ rto_id: string; jurisdiction: string; reporting_period: number }[]> {
  const result = await sql<{ rto_id: string; jurisdiction: string; reporting_period: number }>`
    SELECT rto_id, jurisdiction, reporting_period FROM declaration
     WHERE is_current AND reporting_period >= ${firstPeriod}`.execute(db)
  return result.rows
}
