// Validation use cases: request a run (queued with the request's transaction), read its status,
// cancel it, and page the results of the latest completed run. Decisions: docs/decisions.md.
import type { MessageLevel } from '../../domain/rules.ts'
import { randomUUID } from 'node:crypto'
import type { Db, Executor } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { ConflictError, DomainError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { lockOpenBatch, requireBatch, type BatchRef } from '../batches/index.ts'
import type { ValidationResult, ValidationStatus } from './validation.schemas.ts'
import type { ResultRow, RunRow } from './validation.tables.ts'
import {
  fingerprintOf,
  insertRun,
  latestCompletedRun,
  latestRun,
  pendingRuns,
  sameContent,
  validationRuns,
} from './validation-runs.repo.ts'
import { countResults, listResults, type ResultFilter } from './result-pages.repo.ts'

export interface ValidateJobData {
  rto: string
  runId: string
}

export interface ValidationDependencies {
  db: Db
  queue: Queue
  job: JobDefinition<ValidateJobData>
}

/**
 * POST validate. A run still Queued will see the batch as it is when it starts, so a repeated request
 * answers that run (created: false). A run InProgress may be reading records that have changed since,
 * so it is superseded: cancelled, and a new run queued.
 */
export async function requestValidation(
  deps: ValidationDependencies,
  actor: Actor,
  ref: BatchRef,
): Promise<{ created: boolean; status: ValidationStatus }> {
  return deps.db.transaction().execute(async (tx) => {
    const batch = await lockOpenBatch(tx, actor, ref)
    const pending = await pendingRuns(tx, actor.rto, batch.transaction_batch_token)
    const queued = pending.find((run) => run.status === 'Queued')
    if (queued) return { created: false, status: await statusOf(tx, queued) }
    await validationRuns.cancel(
      tx,
      actor.rto,
      pending.map((run) => run.run_id),
    )
    const run = await insertRun(tx, {
      rto: actor.rto,
      runId: randomUUID(),
      token: batch.transaction_batch_token,
      clientId: actor.clientId,
    })
    await deps.queue.enqueue(tx, deps.job, { rto: actor.rto, runId: run.run_id })
    return { created: true, status: await statusOf(tx, run) }
  })
}

export async function getValidationStatus(db: Db, actor: Actor, ref: BatchRef): Promise<ValidationStatus> {
  const batch = await requireBatch(db, actor, ref)
  const run = await latestRun(db, actor.rto, batch.transaction_batch_token)
  if (!run)
    throw new DomainError(
      'no-validation-run',
      `No validation has been requested for transaction batch ${ref.token} (or the last request was cancelled); POST .../validate to request one.`,
    )
  return statusOf(db, run)
}

/**
 * GET validate's status of a batch the caller already read as its own (the console's task list has it
 * from the batch list): without reading the batch again; undefined when no validation was requested.
 */
export async function validationStatusOfOwnBatch(
  db: Db,
  actor: Actor,
  token: string,
): Promise<ValidationStatus | undefined> {
  const run = await latestRun(db, actor.rto, token)
  return run && statusOf(db, run)
}

/** DELETE validate: cancels a Queued or InProgress run; its results, if any, are never promoted. */
export async function cancelValidation(db: Db, actor: Actor, ref: BatchRef): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const batch = await lockOpenBatch(tx, actor, ref)
    const pending = await pendingRuns(tx, actor.rto, batch.transaction_batch_token)
    if (pending.length === 0)
      throw new ConflictError(
        'no-pending-validation',
        `No validation of transaction batch ${ref.token} is Queued or InProgress; there is nothing to cancel.`,
      )
    await validationRuns.cancel(
      tx,
      actor.rto,
      pending.map((run) => run.run_id),
    )
  })
}

/** A page of the latest completed run's failed results, all of them or those the filter keeps. */
export async function listFailedResults(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  page: PageQuery,
  filter: ResultFilter = {},
): Promise<Page<ValidationResult>> {
  const run = await latestCompletedRunOf(db, actor, ref)
  const [rows, total] = await Promise.all([
    listResults(db, run, page.pageSize, offsetOf(page), filter),
    countOf(db, run, filter),
  ])
  return toPage(rows.map(toValidationResult), total, page)
}

/** How many results the filter keeps: kept on the run unless a resource type is asked for. */
async function countOf(db: Db, run: RunRow, filter: ResultFilter): Promise<number> {
  if (filter.resourceType !== undefined) return countResults(db, run, filter)
  if (filter.technicalRuleId === undefined) return run.result_count ?? 0
  const rules = await validationRuns.resultsByRule(db, run)
  return rules.find((rule) => rule.technicalRuleId === filter.technicalRuleId)?.results ?? 0
}

export interface FailedResultsOfRule {
  technicalRuleId: string
  ruleId: string
  validationMessageLevel: ValidationResult['validationMessageLevel']
  correctiveAction: string
  resourceTypes: string[]
  numberOfResults: number
}

/** The latest completed run's failed results counted per rule (what a person fixes one rule at a time). */
export async function failedResultsByRule(db: Db, actor: Actor, ref: BatchRef): Promise<FailedResultsOfRule[]> {
  const run = await latestCompletedRunOf(db, actor, ref)
  return (await validationRuns.resultsByRule(db, run)).map((rule) => ({
    technicalRuleId: rule.technicalRuleId,
    ruleId: rule.ruleId,
    validationMessageLevel: rule.level as MessageLevel,
    correctiveAction: rule.correctiveAction,
    resourceTypes: rule.resourceTypes,
    numberOfResults: rule.results,
  }))
}

async function latestCompletedRunOf(db: Db, actor: Actor, ref: BatchRef): Promise<RunRow> {
  const batch = await requireBatch(db, actor, ref)
  const run = await latestCompletedRun(db, actor.rto, batch.transaction_batch_token)
  if (!run)
    throw new DomainError(
      'no-validation-run',
      `Transaction batch ${ref.token} has no completed validation yet; poll GET .../validate until validationStatus is Validated.`,
    )
  return run
}

/** A stored result as failed-validation-results answers it. */
export function toValidationResult(row: Omit<ResultRow, 'rto_id' | 'run_id' | 'attempt'>): ValidationResult {
  return {
    validationGroupingId: row.validation_grouping_id,
    relatedValidationResultCount: row.related_validation_result_count,
    errorNumber: row.error_number,
    ruleId: row.rule_id,
    technicalRuleId: row.technical_rule_id,
    validationMessageLevel: row.validation_message_level,
    correctiveAction: row.corrective_action,
    message: row.message,
    resourceType: row.resource_type as ValidationResult['resourceType'],
    resourceUID: row.resource_uid,
    accessPath: row.access_path,
    changeTrackingIdentifier: row.change_tracking_identifier,
    dataSource: row.data_source,
  }
}

/**
 * Whether the batch can be submitted as it stands (spec: submit): the refusal when it cannot; when it
 * can, the reporting periods of its activity dates as its latest validation's record pass found them
 * (undefined when that run did not keep them: completed before migration 0046). One read of the latest
 * run; in submit's transaction, that run is then Validated and its batch unchanged.
 */
export async function submitReadiness(
  db: Executor,
  rto: string,
  token: string,
): Promise<{ blocker: ConflictError } | { blocker?: undefined; activityPeriods: number[] | undefined }> {
  const run = await latestRun(db, rto, token)
  const blocker = await blockerOf(db, run, rto, token)
  return blocker ? { blocker } : { activityPeriods: run!.activity_periods ?? undefined }
}

async function blockerOf(
  db: Executor,
  run: RunRow | undefined,
  rto: string,
  token: string,
): Promise<ConflictError | undefined> {
  if (!run)
    return new ConflictError(
      'validation-not-requested',
      'The batch has not been validated. POST .../validate, poll GET .../validate until Validated, then submit.',
    )
  if (run.status !== 'Validated')
    return new ConflictError(
      'validation-pending',
      `Validation of the batch is ${run.status}. Poll GET .../validate until it is Validated, then submit.`,
    )
  if (!sameContent(run, await fingerprintOf(db, rto, token))) {
    return new ConflictError(
      'validation-stale',
      "The batch's records changed after its latest validation started. Request validation again and submit once it is Validated.",
    )
  }
  if (run.has_blocking_failures)
    return new ConflictError(
      'blocking-validation-failures',
      'The latest validation found blocking failures (validationMessageLevel Error). Read failed-validation-results, correct and re-upload, validate again, then submit.',
    )
  return undefined
}

async function statusOf(db: Executor, run: RunRow): Promise<ValidationStatus> {
  const isCurrent =
    run.status === 'Queued' || sameContent(run, await fingerprintOf(db, run.rto_id, run.transaction_batch_token))
  const validated = run.status === 'Validated'
  return {
    validationStatus: run.status === 'Cancelled' ? 'Queued' : run.status, // a cancelled run is never reported (latestRun skips it)
    hasBlockingValidationFailures: validated && run.has_blocking_failures === true,
    hasNonBlockingValidationFailures: validated && run.has_non_blocking_failures === true,
    isCurrent,
    numberOfResults: validated ? (run.result_count ?? 0) : 0,
    requestedAt: new Date(run.requested_at).toISOString(),
    startedAt: run.started_at ? new Date(run.started_at).toISOString() : null,
    completedAt: run.completed_at && validated ? new Date(run.completed_at).toISOString() : null,
  }
}
