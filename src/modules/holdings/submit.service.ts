// Submitting a batch (spec: States and transitions, Transaction batch; Endpoints, submit). One
// transaction: the batch is locked against uploads, submissions of the RTO are serialised, the latest
// validation must be Validated, current and free of blocking failures, and then every record of the
// batch becomes part of the held dataset and the batch closes, all together or not at all.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { lockOpenBatch, markSubmitted, toSummary, type BatchRef } from '../batches/index.ts'
import { submitBlocker } from '../validation/index.ts'
import { FIRST_REPORTING_PERIOD } from '../validation/reporting-period.ts'
import * as holdings from './holdings.repo.ts'
import { indexSubmission } from './reconciliation-index.repo.ts'
import type { SubmittedBatch } from './holdings.schemas.ts'

export async function submitBatch(db: Db, actor: Actor, ref: BatchRef): Promise<SubmittedBatch> {
  return db.transaction().execute(async (tx) => {
    const batch = await lockOpenBatch(tx, actor, ref)
    const token = batch.transaction_batch_token
    // Two batches of one RTO that touch the same UIDs: the second waits here, then takes the later number.
    await holdings.lockRtoForSubmission(tx, actor.rto)
    const blocker = await submitBlocker(tx, actor.rto, token)
    if (blocker) throw blocker
    const submission = await holdings.nextSubmission(tx)
    const promotion = { rto: actor.rto, token, jurisdiction: batch.jurisdiction, clientId: actor.clientId, submissionSeq: submission.seq, submittedAt: submission.at }
    const numberOfRecords = await holdings.promoteBatch(tx, promotion)
    await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD)
    await indexSubmission(tx, { rto: actor.rto, token, submittedAt: submission.at })
    const submitted = await markSubmitted(tx, actor.rto, token, submission.at)
    return { ...toSummary(submitted), numberOfRecordsSubmitted: numberOfRecords }
  })
}
