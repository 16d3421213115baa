// Submitting a batch (spec: States and transitions, Transaction batch; Endpoints, submit). One
// transaction: the batch is locked against uploads, submissions of the RTO are serialised, the latest
// validation must be Validated, current and free of blocking failures, and then every record of the
// batch becomes part of the held dataset and the batch closes, all together or not at all. Indexing
// the submission for reconciliation is queued in the same transaction and follows within moments.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { batchSubject, lockOpenBatch, markBatchSubmitted, type BatchRef } from '../batches/index.ts'
import { recordEvent } from '../events/index.ts'
import { submitBlocker } from '../validation/index.ts'
import { FIRST_REPORTING_PERIOD } from '../../domain/reporting-period.ts'
import * as holdings from './holdings.repo.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import type { ReconcileJobData } from '../reconciliation/index.ts'
import type { SubmittedBatch } from './holdings.schemas.ts'

export interface SubmitDependencies {
  db: Db
  queue: Queue
  /** Indexes the submission for reconciliation, after it commits, in submission order. */
  reconcileJob: JobDefinition<ReconcileJobData>
}

export async function submitBatch(
  { db, queue, reconcileJob }: SubmitDependencies,
  actor: Actor,
  ref: BatchRef,
): Promise<SubmittedBatch> {
  return db.transaction().execute(async (tx) => {
    const batch = await lockOpenBatch(tx, actor, ref)
    const token = batch.transaction_batch_token
    // Two batches of one RTO that touch the same UIDs: the second waits here, then takes the later number.
    await holdings.lockRtoForSubmission(tx, actor.rto)
    const blocker = await submitBlocker(tx, actor.rto, token)
    if (blocker) throw blocker
    const submission = await holdings.nextSubmission(tx)
    const promotion = {
      rto: actor.rto,
      token,
      jurisdiction: batch.jurisdiction,
      clientId: actor.clientId,
      submissionSeq: submission.seq,
      submittedAt: submission.at,
    }
    const promoted = await holdings.promoteBatch(tx, promotion)
    await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD)
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
  })
}
