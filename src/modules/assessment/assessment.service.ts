// Data quality assessment use cases (spec: Data quality assessment; States and transitions, Data
// quality assessment status): request, read the status, cancel, page the failed outcomes, and the
// readiness check declarations make. Decisions: docs/decisions.md, Data quality assessment.
import type { MessageLevel } from '../../domain/rules.ts'
import { randomUUID } from 'node:crypto'
import type { Db, Executor } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { ConflictError, DomainError, StructuralError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { unsupportedPeriodReason } from '../../domain/reporting-period.ts'
import type { AssessJobData } from './assessment.jobs.ts'
import type { AssessmentResult, AssessmentStatus, AssessmentStatusValue, PeriodParams } from './assessment.schemas.ts'
import * as repo from './assessment.repo.ts'

export interface AssessmentDependencies {
  db: Db
  queue: Queue
  job: JobDefinition<AssessJobData>
}

/** The caller's period, checked: 202601 up to the current quarter, else 400. */
export function periodRefOf(
  actor: Actor,
  params: PeriodParams,
  accessPath = 'path.ReportingPeriodNumber',
): repo.PeriodRef {
  const reason = unsupportedPeriodReason(params.ReportingPeriodNumber)
  if (reason) throw new StructuralError([{ accessPath, message: reason }])
  return { rto: actor.rto, jurisdiction: params.jurisdiction, period: Number(params.ReportingPeriodNumber) }
}

/** POST validate: queues a new assessment; 409 while one is Queued or In Progress. */
export async function requestAssessment(
  deps: AssessmentDependencies,
  actor: Actor,
  params: PeriodParams,
): Promise<AssessmentStatus> {
  const ref = periodRefOf(actor, params)
  return deps.db.transaction().execute(async (tx) => {
    await repo.lockPeriod(tx, ref)
    const pending = await repo.pendingRun(tx, ref)
    if (pending) {
      throw new ConflictError(
        'assessment-in-progress',
        `The assessment of ${ref.jurisdiction} ${ref.period} is ${pending.status === 'Queued' ? 'Queued' : 'In Progress'}. Poll GET .../validate until it finishes, or DELETE .../validate to cancel it, before requesting another.`,
      )
    }
    const run = await repo.insertRun(tx, ref, randomUUID(), actor.clientId)
    await deps.queue.enqueue(tx, deps.job, { rto: ref.rto, runId: run.run_id })
    return statusOf(tx, ref)
  })
}

export async function getAssessmentStatus(db: Db, actor: Actor, params: PeriodParams): Promise<AssessmentStatus> {
  return statusOf(db, periodRefOf(actor, params))
}

/** DELETE validate: cancels a Queued or In Progress assessment (status Required); 409 when there is none. */
export async function cancelAssessment(db: Db, actor: Actor, params: PeriodParams): Promise<void> {
  const ref = periodRefOf(actor, params)
  await db.transaction().execute(async (tx) => {
    await repo.lockPeriod(tx, ref)
    const pending = await repo.pendingRun(tx, ref)
    if (!pending)
      throw new ConflictError(
        'no-pending-assessment',
        `No assessment of ${ref.jurisdiction} ${ref.period} is Queued or In Progress; there is nothing to cancel.`,
      )
    await repo.assessmentRuns.cancel(tx, ref.rto, [pending.run_id])
  })
}

/** A page of the latest completed assessment's failed outcomes, all of them or those of one rule. */
export async function listFailedResults(
  db: Db,
  actor: Actor,
  params: PeriodParams,
  page: PageQuery,
  filter: repo.ResultFilter = {},
): Promise<Page<AssessmentResult>> {
  const run = await latestCompletedRunOf(db, actor, params)
  const [rows, total] = await Promise.all([
    repo.listResults(db, run, page.pageSize, offsetOf(page), filter),
    filter.technicalRuleId === undefined
      ? (run.result_count ?? 0)
      : repo.assessmentRuns
          .resultsByRule(db, run)
          .then((rules) => rules.find((rule) => rule.technicalRuleId === filter.technicalRuleId)?.results ?? 0),
  ])
  return toPage(
    rows.map((row) => ({
      AssessmentGroupingId: row.assessment_grouping_id,
      technicalRuleId: row.technical_rule_id,
      ruleId: row.rule_id,
      AssessmentMessageLevel: row.message_level,
      correctiveAction: row.corrective_action,
      message: row.message,
      resourceType: row.resource_type,
      resourceUID: row.resource_uid,
      changeTrackingIdentifier: row.change_tracking_identifier,
      dataOwner: row.submitted_by_client === actor.clientId,
    })),
    total,
    page,
  )
}

export interface FailedAssessmentResultsOfRule {
  technicalRuleId: string
  ruleId: string
  AssessmentMessageLevel: AssessmentResult['AssessmentMessageLevel']
  correctiveAction: string
  resourceTypes: string[]
  numberOfResults: number
}

/** The latest completed assessment's failed outcomes counted per rule (what a person fixes one rule at a time). */
export async function failedResultsByRule(
  db: Db,
  actor: Actor,
  params: PeriodParams,
): Promise<FailedAssessmentResultsOfRule[]> {
  const run = await latestCompletedRunOf(db, actor, params)
  return (await repo.assessmentRuns.resultsByRule(db, run)).map((rule) => ({
    technicalRuleId: rule.technicalRuleId,
    ruleId: rule.ruleId,
    AssessmentMessageLevel: rule.level as MessageLevel,
    correctiveAction: rule.correctiveAction,
    resourceTypes: rule.resourceTypes,
    numberOfResults: rule.results,
  }))
}

/** The latest completed assessment of a period: which run, who asked for it and when (the sign-off's "prepared by"). */
export interface CompletedAssessment {
  runId: string
  requestedByClient: string
  requestedAt: string
  completedAt: string
  /** Its failed outcomes counted per rule. */
  rules: FailedAssessmentResultsOfRule[]
}

export async function latestCompletedAssessment(
  db: Db,
  actor: Actor,
  params: PeriodParams,
): Promise<CompletedAssessment | undefined> {
  const run = await repo.latestCompletedRun(db, periodRefOf(actor, params))
  if (!run) return undefined
  return {
    runId: run.run_id,
    requestedByClient: run.requested_by_client,
    requestedAt: new Date(run.requested_at).toISOString(),
    completedAt: new Date(run.completed_at ?? run.requested_at).toISOString(),
    rules: await resultsByRuleOfRun(db, run),
  }
}

/**
 * A completed run's failed outcomes counted per rule (declarations checks, in its transaction, that
 * every warning rule of the run a declaration relies on was acknowledged). Scoped by the RTO.
 */
export async function resultsByRuleOfRun(
  db: Executor,
  run: Pick<repo.RunRow, 'rto_id' | 'run_id' | 'attempt' | 'results_by_rule'>,
): Promise<FailedAssessmentResultsOfRule[]> {
  return (await repo.assessmentRuns.resultsByRule(db, run)).map((rule) => ({
    technicalRuleId: rule.technicalRuleId,
    ruleId: rule.ruleId,
    AssessmentMessageLevel: rule.level as MessageLevel,
    correctiveAction: rule.correctiveAction,
    resourceTypes: rule.resourceTypes,
    numberOfResults: rule.results,
  }))
}

async function latestCompletedRunOf(db: Db, actor: Actor, params: PeriodParams): Promise<repo.RunRow> {
  const ref = periodRefOf(actor, params)
  const run = await repo.latestCompletedRun(db, ref)
  if (!run)
    throw new DomainError(
      'no-assessment-run',
      `No assessment of ${ref.jurisdiction} ${ref.period} has completed yet; POST .../validate and poll GET .../validate.`,
    )
  return run
}

/**
 * Declaration readiness (spec: Standard workflows 4; Errors, Declaration rejections): an assessment
 * exists, its status is Validated and it has no blocking outcome. The run a declaration relies on, or
 * the refusal naming why not. Call it in the declaration's transaction: it takes the period's lock
 * first and holds it to the end, so a declaration and an assessment request of the period do not
 * interleave.
 */
export async function declarationReadiness(
  db: Executor,
  ref: repo.PeriodRef,
): Promise<{ run: repo.RunRow } | { refusal: ConflictError }> {
  await repo.lockPeriod(db, ref)
  const latest = await repo.latestRun(db, ref)
  if (!latest) {
    return {
      refusal: new ConflictError(
        'assessment-not-requested',
        `No data quality assessment exists for ${ref.jurisdiction} ${ref.period}. POST /vet-provider/v1/reporting-period/${ref.jurisdiction}/${ref.period}/validate, wait until it is Validated, then declare.`,
      ),
    }
  }
  const status = await statusValueOf(db, ref, latest)
  if (status !== 'Validated') {
    return {
      refusal: new ConflictError(
        'assessment-not-validated',
        `The data quality assessment of ${ref.jurisdiction} ${ref.period} is ${status}, not Validated. ${nextStep(status)}`,
      ),
    }
  }
  if (latest.has_blocking_failures) {
    return {
      refusal: new ConflictError(
        'blocking-assessment-outcomes',
        `The data quality assessment of ${ref.jurisdiction} ${ref.period} has blocking outcomes (AssessmentMessageLevel Error). Read failed-validation-results, correct and resubmit the data, assess again, then declare.`,
      ),
    }
  }
  return { run: latest }
}

/** The status of the latest request, with a completed one re-read against later submissions. */
async function statusValueOf(
  db: Executor,
  ref: repo.PeriodRef,
  latest: repo.RunRow | undefined,
): Promise<AssessmentStatusValue> {
  // The latest submission matters only to a completed run: read it only then.
  return statusValueGiven(latest, latest?.status === 'Completed' ? await repo.latestSubmissionSeq(db, ref) : '0')
}

function statusValueGiven(latest: repo.RunRow | undefined, latestSubmissionSeq: string): AssessmentStatusValue {
  switch (latest?.status) {
    case undefined:
    case 'Cancelled':
      return 'Required'
    case 'Queued':
      return 'Queued'
    case 'InProgress':
      return 'In Progress'
    case 'Fault':
      return 'Fault'
    case 'Completed':
      return BigInt(latestSubmissionSeq) > BigInt(latest.basis_submission_seq ?? '0') ? 'Required' : 'Validated'
  }
}

function nextStep(status: AssessmentStatusValue): string {
  switch (status) {
    case 'Required':
      return 'Request an assessment (POST .../validate) and wait until it is Validated.'
    case 'Queued':
    case 'In Progress':
      return 'Poll GET .../validate until the assessment is Validated.'
    case 'Fault':
      return 'The last assessment failed for a technical reason; request a new one (POST .../validate).'
    case 'Validated':
      return 'Read failed-validation-results.'
  }
}

/**
 * What a Validated assessment's outcomes mean for declaring, from its indicators: the message must
 * match hasBlockingFailures (an Error outcome stops a declaration), never contradict it.
 */
function declarability(run: repo.RunRow): string {
  if (run.has_blocking_failures) {
    return 'The assessment has blocking outcomes (AssessmentMessageLevel Error), so the period cannot be declared: read failed-validation-results, correct and resubmit the data, and assess again.'
  }
  if (run.has_non_blocking_failures) {
    return 'The assessment has no blocking outcome, so the period can be declared; its Warning outcomes do not block, but read failed-validation-results and correct what is wrong. A Nil_activity_report is refused while enrolments with activity in the period are held.'
  }
  return 'The assessment has no failed outcome, so the period can be declared. A Nil_activity_report is refused while enrolments with activity in the period are held.'
}

async function statusOf(db: Executor, ref: repo.PeriodRef): Promise<AssessmentStatus> {
  const latest = await repo.latestRun(db, ref)
  const completed = latest?.status === 'Completed' ? latest : await repo.latestCompletedRun(db, ref)
  const latestSubmissionSeq = latest?.status === 'Completed' ? await repo.latestSubmissionSeq(db, ref) : '0'
  return statusFrom(ref, { latest, completed, latestSubmissionSeq })
}

/**
 * Each RTO's assessment status of one jurisdiction and period, exactly as GET .../validate answers
 * it, read for all of them at once: the operators' view of the collection across RTOs.
 */
export async function assessmentStatusesOf(
  db: Db,
  rtos: readonly string[],
  jurisdiction: string,
  period: number,
): Promise<Map<string, AssessmentStatus>> {
  const statuses = (await assessmentStatusesAcrossPeriods(db, rtos, jurisdiction, [period])).get(period)!
  return new Map(rtos.map((rto) => [rto, statuses.of(rto)]))
}

const NO_RUNS: repo.PeriodRuns = { latest: undefined, completed: undefined, latestSubmissionSeq: '0' }

/**
 * One RTO's assessment status of each period asked for under any jurisdiction, exactly as GET
 * .../validate answers it: three reads in all (its home page lists every jurisdiction and period it
 * reported under, and the task list one of them), each status made when asked for.
 */
export async function assessmentStatusesOfRto(
  db: Db,
  rto: string,
  periods: readonly number[],
): Promise<(jurisdiction: string, period: number) => AssessmentStatus> {
  const runs = await repo.periodRunsOfRto(db, rto, periods)
  return (jurisdiction, period) =>
    statusFrom({ rto, jurisdiction, period }, runs.get(jurisdiction)?.get(period) ?? NO_RUNS)
}

/** The assessment statuses of one period across RTOs, each made when asked for. */
export interface PeriodStatuses {
  /** The RTO's status, exactly as GET .../validate answers it. */
  of(rto: string): AssessmentStatus
  /** How many of the RTOs asked about are Validated (a current assessment). */
  validated: number
}

/**
 * assessmentStatusesOf for several periods at once (the collection and its progress chart): three
 * reads in all, and a status made only for the RTOs a page shows (an RTO with no run of the period is
 * never Validated, so the count looks only at those with one).
 */
export async function assessmentStatusesAcrossPeriods(
  db: Db,
  rtos: readonly string[],
  jurisdiction: string,
  periods: readonly number[],
): Promise<Map<number, PeriodStatuses>> {
  const runs =
    rtos.length === 0
      ? new Map()
      : await repo.periodRunsAcrossRtos(db, jurisdiction, periods, rtos.length === 1 ? rtos[0] : undefined)
  const asked = new Set(rtos)
  return new Map(
    periods.map((period): [number, PeriodStatuses] => {
      const ofPeriod: Map<string, repo.PeriodRuns> = runs.get(period) ?? new Map()
      let validated = 0
      for (const [rto, ofRto] of ofPeriod)
        if (asked.has(rto) && statusValueGiven(ofRto.latest, ofRto.latestSubmissionSeq) === 'Validated') validated++
      return [
        period,
        { of: (rto) => statusFrom({ rto, jurisdiction, period }, ofPeriod.get(rto) ?? NO_RUNS), validated },
      ]
    }),
  )
}

function statusFrom(
  ref: repo.PeriodRef,
  { latest, completed, latestSubmissionSeq }: repo.PeriodRuns,
): AssessmentStatus {
  const status = statusValueGiven(latest, latestSubmissionSeq)
  const messages: string[] = []
  if (!latest) messages.push('No assessment has been requested for this period.')
  else if (latest.status === 'Cancelled')
    messages.push('The latest assessment was cancelled; its partial results were discarded.')
  else if (latest.status === 'Fault')
    messages.push('The latest assessment stopped on a technical error; no results of it were kept.')
  else if (status === 'Required')
    messages.push(
      'Data was submitted for this period after the latest assessment began, so its results may be out of date.',
    )
  if (completed && status !== 'Validated')
    messages.push(
      `The results of the assessment completed at ${new Date(completed.completed_at!).toISOString()} stay readable.`,
    )
  messages.push(status === 'Validated' && completed ? declarability(completed) : nextStep(status))
  return {
    reportingPeriodNumber: ref.period,
    jurisdiction: ref.jurisdiction as AssessmentStatus['jurisdiction'],
    assessmentStatus: status,
    hasBlockingFailures: completed?.has_blocking_failures === true,
    hasNonBlockingFailures: completed?.has_non_blocking_failures === true,
    resultsAreCurrent: status === 'Validated',
    numberOfResults: completed?.result_count ?? 0,
    messages,
    requestedAt: latest ? new Date(latest.requested_at).toISOString() : null,
    startedAt: latest?.started_at ? new Date(latest.started_at).toISOString() : null,
    completedAt: completed?.completed_at ? new Date(completed.completed_at).toISOString() : null,
  }
}

/** What the latest completed assessment of one jurisdiction and period found, counted by level and by rule. */
export interface PeriodQuality {
  jurisdiction: string
  reportingPeriodNumber: number
  completedAt: string
  errors: number
  warnings: number
  rules: { technicalRuleId: string; ruleId: string; level: MessageLevel; results: number }[]
}

/**
 * Data quality over time: for each jurisdiction and period the RTO has had assessed (from
 * `firstPeriod` on), what its latest completed assessment found. Read from the counts per rule each
 * run keeps on completion (one read of the runs), never from the results themselves.
 */
export async function qualityByPeriod(db: Db, actor: Actor, firstPeriod: number): Promise<PeriodQuality[]> {
  const runs = await repo.latestCompletedRunsOfRto(db, actor.rto, firstPeriod)
  const quality: PeriodQuality[] = []
  for (const run of runs) {
    const rules = (await repo.assessmentRuns.resultsByRule(db, run)).map((rule) => ({
      technicalRuleId: rule.technicalRuleId,
      ruleId: rule.ruleId,
      level: rule.level as MessageLevel,
      results: rule.results,
    }))
    const count = (level: MessageLevel) =>
      rules.filter((rule) => rule.level === level).reduce((sum, rule) => sum + rule.results, 0)
    quality.push({
      jurisdiction: run.jurisdiction,
      reportingPeriodNumber: run.reporting_period,
      completedAt: new Date(run.completed_at!).toISOString(),
      errors: count('Error'),
      warnings: count('Warning'),
      rules,
    })
  }
  return quality
}
