// Submitting a batch (spec: States and transitions, Transaction batch; Endpoints, submit). One
// transaction: the batch is locked against uploads, submissions of the RTO are serialised, the latest
// validation must be Validated, current and free of blocking failures, and then every record of the
// batch becomes part of the held dataset and the batch closes, all together or not at all. Indexing
// the submission for reconciliation is queued in the same transaction and follows within moments.
import type { Db, Tx } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { batchSubject, lockOpenBatch, markBatchSubmitted, type BatchRef } from '../batches/index.ts'
import { recordEvent } from '../events/index.ts'
import { submitReadiness } from '../validation/index.ts'
import { FIRST_REPORTING_PERIOD } from '../../domain/reporting-period.ts'
import * as holdings from './holdings.repo.ts'
import type { Queue } from '../../platform/queue/queue.ts'
import type { ReconcileJob } from '../reconciliation/index.ts'
import type { SubmittedBatch } from './holdings.schemas.ts'
import type { SubmitStage } from './submit-job.repo.ts'

/** What a submit request says besides the batch (query parameters; the spec's submit has no body). */
export interface SubmitRequest {
  /** The number of NAT problems the batch's import left out, acknowledged: submit without them. */
  acknowledgeDropped?: number
}

/**
 * A condition another module puts on submitting a batch, checked in the submit's transaction once the
 * batch is locked, before validation's: it throws (a ConflictError) to refuse. Given by whoever wires
 * submit (app.ts, the console), so holdings needs no dependency on the module that owns the condition
 * (nat-bridge depends on holdings): nat-bridge's `droppedLinesAcknowledged`.
 */
export type SubmitCondition = (tx: Tx, actor: Actor, token: string, request: SubmitRequest) => Promise<void>

export interface SubmitDependencies {
  db: Db
  queue: Queue
  /**
   * Indexes the submission for reconciliation, after it commits, in submission order; what it can
   * prepare beside the submit's transaction is started once the batch is locked (its `prepare`).
   */
  reconcileJob: ReconcileJob
  /** Checked in order before every submit; required, so no wiring of submit forgets them. */
  submitConditions: readonly SubmitCondition[]
}

/** What a submit running as a job is told, inside its transaction (the console's submit job). */
export interface SubmitHooks {
  /** Each stage as it starts: the batch checked, its records being stored, its periods and events recorded. */
  onStage?: (stage: SubmitStage) => Promise<void> | void
  /** Last, in the submit's transaction: what else commits with it (the job's row marked Submitted). */
  beforeCommit?: (tx: Tx, submitted: SubmittedBatch) => Promise<void>
}

export async function submitBatch(
  deps: SubmitDependencies,
  actor: Actor,
  ref: BatchRef,
  request: SubmitRequest = {},
  hooks: SubmitHooks = {},
): Promise<SubmittedBatch> {
  return deps.db.transaction().execute(async (tx) => {
    const submitted = await submitIn(tx, deps, actor, ref, request, hooks.onStage ?? (() => {}))
    await hooks.beforeCommit?.(tx, submitted)
    return submitted
  })
}

async function submitIn(
  tx: Tx,
  { queue, reconcileJob, submitConditions }: SubmitDependencies,
  actor: Actor,
  ref: BatchRef,
  request: SubmitRequest,
  onStage: NonNullable<SubmitHooks['onStage']>,
): Promise<SubmittedBatch> {
  const batch = await lockOpenBatch(tx, actor, ref)
  const token = batch.transaction_batch_token
  for (const condition of submitConditions) await condition(tx, actor, token, request)
  // Two batches of one RTO that touch the same UIDs: the second waits here, then takes the later number.
  await holdings.lockRtoForSubmission(tx, actor.rto)
  const readiness = await submitReadiness(tx, actor.rto, token)
  if (readiness.blocker) throw readiness.blocker
  await onStage('storing')
  const submission = await holdings.nextSubmission(tx)
  // The batch is locked and its records final: the indexing's preparation runs beside the promotion.
  reconcileJob.prepare?.({ rto: actor.rto, token, submittedAt: submission.at })
  const promotion = {
    rto: actor.rto,
    token,
    jurisdiction: batch.jurisdiction,
    clientId: actor.clientId,
    submissionSeq: submission.seq,
    submittedAt: submission.at,
  }
  const promoted = await holdings.promoteBatch(tx, promotion)
  await onStage('recording')
  await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD, readiness.activityPeriods)
  await queue.enqueue(tx, reconcileJob, { rto: actor.rto })
  const submitted = await markBatchSubmitted(tx, actor.rto, token, submission.at)
  // The events last: the RTO's event number is locked from here until the commit.
  const subject = batchSubject(batch.jurisdiction, token)
  const told = { rto: actor.rto, subject, jurisdiction: batch.jurisdiction }
  await recordEvent(tx, {
    ...told,
    type: 'au.gov.vetrs.batch.submitted',
    data: {
      transactionBatchToken: token,
      submissionNumber: submission.seq,
      submittedAt: submitted.submittedAt,
      numberOfRecordsSubmitted: promoted.records,
      clientId: actor.clientId,
    },
  })
  const voided = Object.values(promoted.voidedByType).reduce((sum, n) => sum + n, 0)
  if (voided > 0)
    await recordEvent(tx, {
      ...told,
      type: 'au.gov.vetrs.records.voided',
      data: {
        transactionBatchToken: token,
        submissionNumber: submission.seq,
        numberOfRecordsVoided: voided,
        voidedByResourceType: promoted.voidedByType,
      },
    })
  return { ...submitted, numberOfRecordsSubmitted: promoted.records }
}
