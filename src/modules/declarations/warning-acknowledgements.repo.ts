// SQL for the authorised person's acknowledgements of an assessment's warning rules (issue 32, item 4;
// migrations/0029_warning_acknowledgement.ts). Every statement is scoped by the caller's RTO; rows are
// never deleted, and a declaration keeps those of the run it relied on.
import { sql, type Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'

export interface WarningAcknowledgementTable {
  rto_id: string
  assessment_run_id: string
  technical_rule_id: string
  jurisdiction: string
  reporting_period: number
  outcome_count: number
  explanation: string
  acknowledged_by_name: string
  acknowledged_by_client: string
  acknowledged_at: Date
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    warning_acknowledgement: WarningAcknowledgementTable
  }
}

export type WarningAcknowledgementRow = Selectable<WarningAcknowledgementTable>

/** Acknowledges a warning rule of a run, or says it again with another explanation (the latest is kept). */
export async function upsert(db: Executor, row: Omit<WarningAcknowledgementTable, 'acknowledged_at'>): Promise<void> {
  await db
    .insertInto('warning_acknowledgement')
    .values({ ...row, acknowledged_at: sql`clock_timestamp()` })
    .onConflict((conflict) =>
      conflict.columns(['rto_id', 'assessment_run_id', 'technical_rule_id']).doUpdateSet({
        outcome_count: row.outcome_count,
        explanation: row.explanation,
        acknowledged_by_name: row.acknowledged_by_name,
        acknowledged_by_client: row.acknowledged_by_client,
        acknowledged_at: sql`clock_timestamp()`,
      }),
    )
    .execute()
}

/** The acknowledgements of the RTO's runs, in rule order. */
export async function ofRuns(
  db: Executor,
  rto: string,
  runIds: readonly string[],
): Promise<WarningAcknowledgementRow[]> {
  if (runIds.length === 0) return []
  return db
    .selectFrom('warning_acknowledgement')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('assessment_run_id', 'in', runIds)
    .orderBy('technical_rule_id')
    .execute()
}

/** Whether a declaration of the RTO relies on the run (its acknowledgements are then kept as they are). */
export async function isDeclaredOn(db: Executor, rto: string, runId: string): Promise<boolean> {
  const row = await db
    .selectFrom('declaration')
    .select('declaration_id')
    .where('rto_id', '=', rto)
    .where('assessment_run_id', '=', runId)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** The run each of the RTO's declarations relied on. */
export async function runsOfDeclarations(
  db: Executor,
  rto: string,
  declarationIds: readonly string[],
): Promise<Map<string, string>> {
  if (declarationIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('declaration')
    .select(['declaration_id', 'assessment_run_id'])
    .where('rto_id', '=', rto)
    .where('declaration_id', 'in', declarationIds)
    .execute()
  return new Map(rows.map((row) => [row.declaration_id, row.assessment_run_id]))
}
