// Brings reconciliation up to date with an RTO's submissions, in the order they were submitted: each
// submitted batch not yet indexed is indexed in a transaction of its own, which also marks it
// reconciled. At-least-once delivery is safe: a batch is indexed once, and a job that finds nothing
// left to do ends. Jobs of one RTO take turns on an advisory lock.
import { sql } from 'kysely'
import type { Db, Tx } from '../../platform/db/database.ts'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { batchSubject, markBatchReconciled, nextBatchToReconcile } from '../batches/index.ts'
import { recordEvent } from '../events/index.ts'
import { indexSubmission } from './reconciliation-index.repo.ts'

export interface ReconcileJobData {
  rto: string
}

export function reconciliationJob(db: Db): JobDefinition<ReconcileJobData> {
  return {
    name: 'reconcile-submissions',
    heartbeat: true,
    retryLimit: 10,
    rtoOf: (data) => data.rto, // one RTO's runs take turns; other RTOs' go ahead (issue 21, fairness)
    async handle({ rto }) {
      while (await db.transaction().execute((tx) => indexNextSubmission(tx, rto))) {
        /* next batch */
      }
    },
  }
}

/** Indexes the RTO's oldest submitted batch not yet reconciled; false when there is none. */
export async function indexNextSubmission(tx: Tx, rto: string): Promise<boolean> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:reconcile:${rto}`}))`.execute(tx)
  const next = await nextBatchToReconcile(tx, rto)
  if (!next) return false
  await indexSubmission(tx, { rto, token: next.token, submittedAt: next.submittedAt })
  await markBatchReconciled(tx, rto, next.token)
  await recordEvent(tx, {
    rto,
    type: 'au.gov.vetrs.batch.reconciled',
    subject: batchSubject(next.jurisdiction, next.token),
    jurisdiction: next.jurisdiction,
    data: { transactionBatchToken: next.token, submittedAt: next.submittedAt.toISOString() },
  })
  return true
}

/** Indexes every submission of the RTO still waiting, in this transaction: bulk loads have no queue to wait for. */
export async function indexPendingSubmissions(tx: Tx, rto: string): Promise<void> {
  while (await indexNextSubmission(tx, rto)) {
    /* next batch */
  }
}
