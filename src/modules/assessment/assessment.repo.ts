// SQL for data quality assessment runs and their results. Every statement is scoped by the caller's RTO.
import { sql, type Generated, type RawBuilder, type Selectable } from 'kysely'
import type { Db, Executor } from '../../platform/db/database.ts'
import { nameBasedUuid } from '../../platform/db/uuid.ts'
import { insertInSlices } from '../../platform/db/sliced-insert.ts'
import { createRunLifecycle } from '../../platform/runs/run-lifecycle.ts'
import type { MessageLevel } from '../../domain/rules.ts'
import type { AssessmentFindingRow, AssessmentRule, AssessmentScope } from './assessment-rule.ts'
import type { HoldingsViews } from '../holdings/index.ts'

export type RunStatus = 'Queued' | 'InProgress' | 'Completed' | 'Cancelled' | 'Fault'

export interface AssessmentRunTable {
  rto_id: string
  run_id: string
  jurisdiction: string
  reporting_period: number
  status: RunStatus
  attempt: Generated<number>
  requested_by_client: string
  requested_at: Generated<Date>
  started_at: Date | null
  completed_at: Date | null
  basis_submission_seq: string | null
  has_blocking_failures: boolean | null
  has_non_blocking_failures: boolean | null
  result_count: number | null
  /** The results counted per rule (RuleCount[]), kept on completion by the run lifecycle. */
  results_by_rule: Generated<unknown>
  /** The seq of every RESULT_ANCHOR_EVERY-th result (bigint[], platform/runs), kept on completion; null before. */
  result_anchors: Generated<unknown>
}

export interface AssessmentResultTable {
  rto_id: string
  run_id: string
  attempt: number
  seq: Generated<string>
  assessment_grouping_id: string
  technical_rule_id: string
  rule_id: string
  message_level: MessageLevel
  corrective_action: string
  message: string
  resource_type: string
  resource_uid: string
  change_tracking_identifier: string | null
  submitted_by_client: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    assessment_run: AssessmentRunTable
    assessment_result: AssessmentResultTable
  }
}

export type RunRow = Selectable<AssessmentRunTable>

/** One RTO's assessment of one jurisdiction and reporting period. */
export interface PeriodRef {
  rto: string
  jurisdiction: string
  period: number
}

/** Serialises requests and cancellations for one period for the rest of the transaction. */
export async function lockPeriod(db: Executor, ref: PeriodRef): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:assess:${ref.rto}:${ref.jurisdiction}:${ref.period}`}))`.execute(
    db,
  )
}

export async function insertRun(db: Executor, ref: PeriodRef, runId: string, clientId: string): Promise<RunRow> {
  return db
    .insertInto('assessment_run')
    .values({
      rto_id: ref.rto,
      run_id: runId,
      jurisdiction: ref.jurisdiction,
      reporting_period: ref.period,
      status: 'Queued',
      requested_by_client: clientId,
      started_at: null,
      completed_at: null,
      basis_submission_seq: null,
      has_blocking_failures: null,
      has_non_blocking_failures: null,
      result_count: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

// biome-ignore lint/suspicious/noExplicitAny: applied to queries of the three period-keyed tables alike
const forPeriod = (ref: PeriodRef) => (qb: any) =>
  qb
    .where('rto_id', '=', ref.rto)
    .where('jurisdiction', '=', ref.jurisdiction)
    .where('reporting_period', '=', ref.period)

/** The period's latest request, whatever became of it: the status a client sees derives from it. */
export async function latestRun(db: Executor, ref: PeriodRef): Promise<RunRow | undefined> {
  return db
    .selectFrom('assessment_run')
    .selectAll()
    .$call(forPeriod(ref))
    .orderBy('requested_at', 'desc')
    .orderBy('run_id')
    .limit(1)
    .executeTakeFirst()
}

/** The period's latest completed run: the one whose results are read and that declarations rely on. */
export async function latestCompletedRun(db: Executor, ref: PeriodRef): Promise<RunRow | undefined> {
  return db
    .selectFrom('assessment_run')
    .selectAll()
    .$call(forPeriod(ref))
    .where('status', '=', 'Completed')
    .orderBy('completed_at', 'desc')
    .orderBy('run_id')
    .limit(1)
    .executeTakeFirst()
}

/**
 * The latest completed run of each jurisdiction and reporting period of the RTO from `firstPeriod` on:
 * one row per period assessed (the runs table only; their results counted per rule are kept on it).
 */
export async function latestCompletedRunsOfRto(db: Executor, rto: string, firstPeriod: number): Promise<RunRow[]> {
  return db
    .selectFrom('assessment_run')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('status', '=', 'Completed')
    .where('reporting_period', '>=', firstPeriod)
    .distinctOn(['jurisdiction', 'reporting_period'])
    .orderBy('jurisdiction')
    .orderBy('reporting_period')
    .orderBy('completed_at', 'desc')
    .orderBy('run_id')
    .execute()
}

export async function pendingRun(db: Executor, ref: PeriodRef): Promise<RunRow | undefined> {
  return db
    .selectFrom('assessment_run')
    .selectAll()
    .$call(forPeriod(ref))
    .where('status', 'in', ['Queued', 'InProgress'])
    .executeTakeFirst()
}

// Cross-module read, on purpose: the period's latest submission number (here and in the lifecycle's
// claim basis below) is read from the view holdings publishes for it (period_last_submission) in the statement that needs it,
// so a claim and the basis it records are one snapshot (docs/decisions.md, "Architecture: shared kernel
// and module boundaries").
/** The number of the period's latest submission (0 when none): data submitted later makes a completed assessment stale. */
export async function latestSubmissionSeq(db: Executor, ref: PeriodRef): Promise<string> {
  const row = await db
    .withTables<HoldingsViews>()
    .selectFrom('period_last_submission')
    .select(sql<string>`last_submission_seq::text`.as('seq'))
    .where('rto_id', '=', ref.rto)
    .where('jurisdiction', '=', ref.jurisdiction)
    .where('reporting_period', '=', ref.period)
    .executeTakeFirst()
  return row?.seq ?? '0'
}

/** Of one RTO's period: its latest run, its latest completed run and its latest submission number. */
export interface PeriodRuns {
  latest: RunRow | undefined
  completed: RunRow | undefined
  latestSubmissionSeq: string
}

/**
 * The runs of each period asked for, across every RTO, in three reads by jurisdiction and period
 * (assessment_run_by_period; migration 0035) whatever the number of RTOs and periods: for the
 * operators' view of the collection, where a query per RTO would be thousands of round trips and an
 * IN list of every RTO costs its parsing on each view. Only RTOs with a run of the period are in a
 * period's map; the latest submission number is read only for them (the status compares it with a
 * completed run's basis, and needs it nowhere else).
 */
export async function periodRunsAcrossRtos(
  db: Executor,
  jurisdiction: string,
  periods: readonly number[],
  /** One RTO only (its own pages): the reads then stay in its rows of the RTO-led indexes. */
  onlyRto?: string,
): Promise<Map<number, Map<string, PeriodRuns>>> {
  const byJurisdiction = await periodRuns(db, periods, { jurisdiction, rto: onlyRto })
  return byJurisdiction.get(jurisdiction) ?? new Map(periods.map((period) => [period, new Map()]))
}

/**
 * One RTO's runs of each period asked for under every jurisdiction, by jurisdiction, then period (its
 * home page, where every row of its periods needs a status): the same three reads as one jurisdiction's,
 * in the RTO's rows of assessment_run_period_idx, rather than three per jurisdiction.
 */
export async function periodRunsOfRto(
  db: Executor,
  rto: string,
  periods: readonly number[],
): Promise<Map<string, Map<number, PeriodRuns>>> {
  const byJurisdiction = await periodRuns(db, periods, { rto })
  const ofRto = new Map<string, Map<number, PeriodRuns>>()
  for (const [jurisdiction, byPeriod] of byJurisdiction) {
    const runs = new Map<number, PeriodRuns>()
    for (const [period, byRto] of byPeriod) {
      const found = byRto.get(rto)
      if (found) runs.set(period, found)
    }
    ofRto.set(jurisdiction, runs)
  }
  return ofRto
}

/** The three reads of periodRunsAcrossRtos and periodRunsOfRto: by jurisdiction, period and RTO. */
async function periodRuns(
  db: Executor,
  periods: readonly number[],
  where: { jurisdiction?: string | undefined; rto?: string | undefined },
): Promise<Map<string, Map<number, Map<string, PeriodRuns>>>> {
  const byJurisdiction = new Map<string, Map<number, Map<string, PeriodRuns>>>()
  if (periods.length === 0) return byJurisdiction
  const asked = [...periods]
  const { jurisdiction, rto } = where
  // One jurisdiction's reads keep the operators' plan (assessment_run_by_period, in its order).
  const distinct =
    jurisdiction === undefined
      ? (['jurisdiction', 'reporting_period', 'rto_id'] as const)
      : (['reporting_period', 'rto_id'] as const)
  const [latest, completed, submissions] = await Promise.all([
    db
      .selectFrom('assessment_run')
      .selectAll()
      .$if(jurisdiction !== undefined, (qb) => qb.where('jurisdiction', '=', jurisdiction!))
      .where('reporting_period', '=', sql<number>`ANY(${asked}::int[])`)
      .$if(rto !== undefined, (qb) => qb.where('rto_id', '=', rto!))
      .distinctOn(distinct)
      .$if(jurisdiction === undefined, (qb) => qb.orderBy('jurisdiction'))
      .orderBy('reporting_period')
      .orderBy('rto_id')
      .orderBy('requested_at', 'desc')
      .orderBy('run_id')
      .execute(),
    db
      .selectFrom('assessment_run')
      .selectAll()
      .$if(jurisdiction !== undefined, (qb) => qb.where('jurisdiction', '=', jurisdiction!))
      .where('reporting_period', '=', sql<number>`ANY(${asked}::int[])`)
      .where('status', '=', 'Completed')
      .$if(rto !== undefined, (qb) => qb.where('rto_id', '=', rto!))
      .distinctOn(distinct)
      .$if(jurisdiction === undefined, (qb) => qb.orderBy('jurisdiction'))
      .orderBy('reporting_period')
      .orderBy('rto_id')
      .orderBy('completed_at', 'desc')
      .orderBy('run_id')
      .execute(),
    sql<{ rto_id: string; jurisdiction: string; reporting_period: number; seq: string }>`
      SELECT s.rto_id, s.jurisdiction, s.reporting_period, s.last_submission_seq::text AS seq
        FROM period_last_submission s
       WHERE s.reporting_period = ANY(${asked}::int[])
         ${jurisdiction === undefined ? sql`` : sql`AND s.jurisdiction = ${jurisdiction}`}
         ${rto === undefined ? sql`` : sql`AND s.rto_id = ${rto}`}
         AND EXISTS (SELECT 1 FROM assessment_run r
                      WHERE r.rto_id = s.rto_id AND r.jurisdiction = s.jurisdiction
                        AND r.reporting_period = s.reporting_period)`.execute(db),
  ])
  const runsOf = (jurisdiction: string, period: number, rto: string): PeriodRuns => {
    let ofJurisdiction = byJurisdiction.get(jurisdiction)
    if (!ofJurisdiction) {
      ofJurisdiction = new Map(periods.map((p) => [p, new Map()]))
      byJurisdiction.set(jurisdiction, ofJurisdiction)
    }
    const ofPeriod = ofJurisdiction.get(period)!
    let runs = ofPeriod.get(rto)
    if (!runs) {
      runs = { latest: undefined, completed: undefined, latestSubmissionSeq: '0' }
      ofPeriod.set(rto, runs)
    }
    return runs
  }
  for (const row of latest as RunRow[]) runsOf(row.jurisdiction, row.reporting_period, row.rto_id).latest = row
  for (const row of completed as RunRow[]) runsOf(row.jurisdiction, row.reporting_period, row.rto_id).completed = row
  for (const row of submissions.rows)
    runsOf(row.jurisdiction, row.reporting_period, row.rto_id).latestSubmissionSeq = row.seq
  return byJurisdiction
}

/**
 * The run lifecycle (src/platform/runs/run-lifecycle.ts) over assessment_run and assessment_result. A
 * claim records the period's latest submission number as the basis the results are current for; a
 * technical error ends the run in Fault.
 */
export const assessmentRuns = createRunLifecycle({
  runTable: 'assessment_run',
  resultTable: 'assessment_result',
  subjectColumns: ['jurisdiction', 'reporting_period'],
  statuses: {
    queued: 'Queued',
    inProgress: 'InProgress',
    completed: 'Completed',
    cancelled: 'Cancelled',
    fault: 'Fault',
  },
  levelColumn: 'message_level',
  blockingLevel: 'Error',
  basis: {
    set: sql`basis_submission_seq = coalesce((SELECT s.last_submission_seq FROM period_last_submission s
                                             WHERE s.rto_id = r.rto_id AND s.jurisdiction = r.jurisdiction AND s.reporting_period = r.reporting_period), 0)`,
  },
})

/**
 * The settings a rule's statement runs under, inside its transaction. JIT is off (see
 * validation/result-writes.repo.ts insertSetRuleResults). Nested loops are off: the rules join held
 * records on UIDs read from bodies (jsonb), whose matches the planner cannot estimate; it guessed a row
 * or two and ran a look-up of a whole record type per enrolment, growing with the square of the
 * period's records (124 s for 3,000 outcomes on the embedded database, issue 30). An assessment always
 * reads a whole period, so every rule gets hash and merge joins, which grow linearly (laterals over a
 * record's own arrays still nest).
 */
export async function ruleSessionSettings(tx: Executor): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(tx)
  await sql`SET LOCAL enable_nestloop = off`.execute(tx)
}

/** The columns of assessment_result a rule's results fill, in the order ruleResultValues gives them. */
const RESULT_COLUMNS = [
  'rto_id',
  'run_id',
  'attempt',
  'assessment_grouping_id',
  'technical_rule_id',
  'rule_id',
  'message_level',
  'corrective_action',
  'message',
  'resource_type',
  'resource_uid',
  'change_tracking_identifier',
  'submitted_by_client',
] as const

/** The order a rule's results are stored in (their seq): grouped. */
const RULE_RESULT_ORDER = sql`f.group_key, f.resource_type, f.resource_uid`

/** A result's columns (RESULT_COLUMNS) from a row f of the rule's query. */
function ruleResultValues(rule: AssessmentRule, scope: AssessmentScope, runId: string, attempt: number) {
  return sql`${scope.rto}::text, ${runId}::uuid, ${attempt}::int, ${nameBasedUuid(sql`${`${runId}:${attempt}:${rule.technicalRuleId}:`}::text || f.group_key`)},
             ${rule.technicalRuleId}::text, ${rule.ruleId}::text, ${rule.level}::text, ${rule.correctiveAction}::text,
             f.message, f.resource_type, f.resource_uid, f.change_tracking_identifier, f.submitted_by_client`
}

/** The one statement that runs a rule's query and stores its rows as results. */
export function ruleResultsStatement(
  rule: AssessmentRule,
  scope: AssessmentScope,
  runId: string,
  attempt: number,
  query: RawBuilder<AssessmentFindingRow> = rule.query(scope),
): RawBuilder<unknown> {
  return sql`
      INSERT INTO assessment_result (${sql.join(RESULT_COLUMNS.map((column) => sql.id(column)))})
      SELECT ${ruleResultValues(rule, scope, runId, attempt)}
        FROM (${query}) AS f
       ORDER BY ${RULE_RESULT_ORDER}`
}

/**
 * Runs one rule's query and stores its rows as results, in one statement inside the database, or, with
 * `sliceRows`, found in one statement and written `sliceRows` at a time (platform/db/sliced-insert.ts:
 * the same rows, in the same order).
 */
export async function insertRuleResults(
  db: Db,
  rule: AssessmentRule,
  scope: AssessmentScope,
  runId: string,
  attempt: number,
  sliceRows?: number,
  query: RawBuilder<AssessmentFindingRow> = rule.query(scope),
): Promise<void> {
  if (sliceRows !== undefined) {
    await insertInSlices(
      db,
      {
        table: 'assessment_result',
        columns: RESULT_COLUMNS,
        // The found rows as the query gives them, with their place; the result's other columns
        // computed as each slice is written.
        rows: sql`SELECT f.group_key, f.resource_type, f.resource_uid, f.change_tracking_identifier, f.submitted_by_client,
                         f.message, row_number() OVER (ORDER BY ${RULE_RESULT_ORDER}) AS slice_ord
                    FROM (${query}) AS f`,
        values: ruleResultValues(rule, scope, runId, attempt),
        settings: ruleSessionSettings,
        // One write at a time per attempt; the rule is done before the next starts.
        name: `assessment_found_${runId.replaceAll('-', '')}_${attempt}`,
      },
      sliceRows,
    )
    return
  }
  await db.transaction().execute(async (tx) => {
    await ruleSessionSettings(tx)
    await ruleResultsStatement(rule, scope, runId, attempt, query).execute(tx)
  })
}

/** Narrows a run's results to one rule. */
export interface ResultFilter {
  technicalRuleId?: string | undefined
}

export async function listResults(db: Executor, run: RunRow, limit: number, offset: number, filter: ResultFilter = {}) {
  let query = db
    .selectFrom('assessment_result')
    .select([
      'assessment_grouping_id',
      'technical_rule_id',
      'rule_id',
      'message_level',
      'corrective_action',
      'message',
      'resource_type',
      'resource_uid',
      'change_tracking_identifier',
      'submitted_by_client',
    ])
    .where('rto_id', '=', run.rto_id)
    .where('run_id', '=', run.run_id)
    .where('attempt', '=', run.attempt)
  if (filter.technicalRuleId !== undefined) query = query.where('technical_rule_id', '=', filter.technicalRuleId)
  return query.orderBy('seq').limit(limit).offset(offset).execute()
}
