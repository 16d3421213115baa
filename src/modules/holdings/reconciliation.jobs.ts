// Brings reconciliation up to date with an RTO's submissions, in the order they were submitted: each
// submitted batch not yet indexed is indexed in a transaction of its own, which also marks it
// reconciled. At-least-once delivery is safe: a batch is indexed once, and a job that finds nothing
// left to do ends. Jobs of one RTO take turns on an advisory lock.
import { sql } from 'kysely'
import type { Db, Executor } from '../../platform/db/database.ts'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { indexSubmission } from './reconciliation-index.repo.ts'

export interface ReconcileJobData {
  rto: string
}

export function reconciliationJob(db: Db): JobDefinition<ReconcileJobData> {
  return {
    name: 'reconcile-submissions',
    heartbeat: true,
    retryLimit: 10,
    async handle({ rto }) {
      while (await db.transaction().execute((tx) => indexNextSubmission(tx, rto))) {
        /* next batch */
      }
    },
  }
}

/** Indexes the RTO's oldest submitted batch not yet reconciled; false when there is none. */
export async function indexNextSubmission(tx: Executor, rto: string): Promise<boolean> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:reconcile:${rto}`}))`.execute(tx)
  const next = await tx
    .selectFrom('transaction_batch')
    .select(['transaction_batch_token', 'submitted_at'])
    .where('rto_id', '=', rto)
    .where('status', '=', 'Submitted')
    .where('reconciled_at', 'is', null)
    .orderBy('submitted_at')
    .orderBy('transaction_batch_token')
    .limit(1)
    .executeTakeFirst()
  if (!next) return false
  await indexSubmission(tx, { rto, token: next.transaction_batch_token, submittedAt: new Date(next.submitted_at!) })
  await tx
    .updateTable('transaction_batch')
    .set({ reconciled_at: sql`clock_timestamp()` })
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', next.transaction_batch_token)
    .execute()
  return true
}
