// Runs one data quality assessment: every rule's query over the period's held data, one after another,
// results written per attempt. A cancelled or superseded attempt drops what it wrote; only the attempt
// that completes is ever read. A technical error is the caller's to turn into Fault (assessment.jobs.ts).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { Logger } from 'pino'
import { transactionsRunAlone, type Db } from '../../platform/db/database.ts'
import { resultSliceRowsFor } from '../../platform/db/sliced-insert.ts'
import { firstDayOf, lastDayOf, utcToday } from '../../domain/reporting-period.ts'
import type { AssessmentRule, AssessmentScope } from './assessment-rule.ts'
import { recordEvent } from '../events/index.ts'
import * as repo from './assessment.repo.ts'
import { insertKeyedRuleResults, insertRuleResultsInKeySlices } from './assessment.pieces.ts'
import { DEFAULT_SLICE_RECORDS, dropStage, stagePeriod } from './assessment.stage.ts'

export interface AssessmentEngineDependencies {
  db: Db
  logger: Logger
  rules: readonly AssessmentRule[]
  /** Awaited after each rule; tests use it to hold a run In Progress. */
  afterRule?: ((technicalRuleId: string, scope: AssessmentScope) => Promise<void>) | undefined
  /** Records per statement of the period's working copy (assessment.stage.ts); default 5,000. */
  sliceRecords?: number | undefined
  /**
   * Result rows written per statement (a rule's results found in one statement, then written in
   * slices: platform/db/sliced-insert.ts). Default: 1,000 on the embedded database, where a
   * statement holds the service's thread; on PostgreSQL each rule's results are one statement. Null:
   * one statement on either database.
   */
  resultSliceRows?: number | null | undefined
  /**
   * Whether the attempt copies its period first (assessment.stage.ts) and the rules read the copy, or
   * the rules read the held data directly. Default: the copy on the embedded database, where it keeps
   * each statement short; the held data on PostgreSQL, where the copy made the job longer (medians 39.6
   * against 16.9 s at 100,000 records, bench/assessment-copy.ts) and a long statement holds no one else up.
   */
  workingCopy?: boolean | undefined
  /**
   * Whether rules that can (AssessmentRule.sliced, AssessmentRule.keyed) run in key slices of the
   * working copy, `sliceRecords` records a statement. Default: yes whenever there is a working copy.
   */
  ruleSlices?: boolean | undefined
}

export type AssessmentOutcome = 'completed' | 'abandoned' | 'not-runnable'

/** Thrown for a technical error during a live attempt: the attempt it happened in is the one to mark Fault. */
export class AssessmentFailure extends Error {
  readonly attempt: number
  constructor(attempt: number, cause: unknown) {
    super('data quality assessment failed', { cause })
    this.attempt = attempt
  }
}

export async function runAssessment(
  deps: AssessmentEngineDependencies,
  rto: string,
  runId: string,
): Promise<AssessmentOutcome> {
  const { db } = deps
  const runs = repo.assessmentRuns
  const run = await runs.claim(db, rto, runId)
  if (!run) return 'not-runnable' // completed, cancelled or faulted already (a redelivered job)
  const { attempt } = run
  const log = deps.logger.child({ rto, runId, attempt, period: run.reporting_period, jurisdiction: run.jurisdiction })
  const sliceRecords = deps.sliceRecords ?? DEFAULT_SLICE_RECORDS
  const resultSliceRows = resultSliceRowsFor(db, deps.resultSliceRows)
  const workingCopy = deps.workingCopy ?? transactionsRunAlone(db)
  try {
    await runs.deleteOtherAttempts(db, rto, runId, attempt)
    await dropStage(db, rto, runId, { otherThan: attempt }, sliceRecords)
    const periodEnd = lastDayOf(run.reporting_period)
    const today = utcToday()
    const scope: AssessmentScope = {
      rto,
      jurisdiction: run.jurisdiction,
      period: run.reporting_period,
      periodStart: firstDayOf(run.reporting_period),
      periodEnd,
      asAt: today < periodEnd ? today : periodEnd,
      stage: workingCopy ? { runId, attempt } : undefined,
    }
    const timings: Record<string, number> = {}
    // The period copied once, in slices, with what every rule derives from it (assessment.stage.ts):
    // each rule is then one short statement over plain columns (issue 30).
    if (workingCopy) {
      const staging = performance.now()
      await stagePeriod(db, { ...scope, stage: { runId, attempt } }, sliceRecords)
      timings.stage = Math.round(performance.now() - staging)
    }
    for (const rule of deps.rules) {
      // Requests that arrived during the last rule go first: on the embedded database a statement runs
      // on this thread, and one awaited after another would leave it no turn to read them (issue 30).
      await yieldToEventLoop()
      const started = performance.now()
      const { sliced, keyed } = rule
      const staged = { ...scope, stage: { runId, attempt } }
      const inSlices = workingCopy && (deps.ruleSlices ?? true)
      if (sliced && inSlices)
        await insertRuleResultsInKeySlices(
          db,
          { ...rule, sliced },
          staged,
          runId,
          attempt,
          sliceRecords,
          resultSliceRows,
        )
      else if (keyed && inSlices)
        await insertKeyedRuleResults(db, { ...rule, keyed }, staged, runId, attempt, sliceRecords, resultSliceRows)
      else await repo.insertRuleResults(db, rule, scope, runId, attempt, resultSliceRows)
      timings[rule.technicalRuleId] = Math.round(performance.now() - started)
      await deps.afterRule?.(rule.technicalRuleId, scope)
      if (!(await runs.checkpoint(db, rto, runId, attempt)))
        return abandoned(deps, log, rto, runId, attempt, sliceRecords)
    }
    if (workingCopy) await dropStage(db, rto, runId, { attempt }, sliceRecords)
    // Completed and told in one transaction: the run is Completed exactly when its event is recorded.
    const completed = await db.transaction().execute(async (tx) => {
      if (!(await runs.complete(tx, rto, runId, attempt))) return false
      const outcome = await repo.assessmentRuns.completedOutcome(tx, rto, runId)
      await recordEvent(tx, {
        rto,
        type: 'au.gov.vetrs.assessment.completed',
        subject: `reporting-period/${run.jurisdiction}/${run.reporting_period}/validate`,
        jurisdiction: run.jurisdiction,
        period: run.reporting_period,
        data: {
          assessmentRunId: runId,
          assessmentStatus: 'Validated',
          hasBlockingFailures: outcome.hasBlocking,
          hasNonBlockingFailures: outcome.hasNonBlocking,
          resultsByLevel: outcome.resultsByLevel,
        },
      })
      return true
    })
    if (!completed) return abandoned(deps, log, rto, runId, attempt, sliceRecords)
    log.info({ milliseconds: timings }, 'data quality assessment completed')
    return 'completed'
  } catch (error) {
    // The working copy is of no use to anyone now; a failure to drop it is not the failure to report.
    await dropStage(db, rto, runId, { attempt }, sliceRecords).catch(() => undefined)
    throw new AssessmentFailure(attempt, error)
  }
}

async function abandoned(
  deps: AssessmentEngineDependencies,
  log: Logger,
  rto: string,
  runId: string,
  attempt: number,
  sliceRecords: number,
): Promise<AssessmentOutcome> {
  await dropStage(deps.db, rto, runId, { attempt }, sliceRecords)
  await repo.assessmentRuns.deleteAttempt(deps.db, rto, runId, attempt)
  log.info('data quality assessment cancelled; its partial results are discarded')
  return 'abandoned'
}
