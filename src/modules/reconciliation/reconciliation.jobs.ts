// Brings reconciliation up to date with an RTO's submissions, in the order they were submitted: each
// submitted batch not yet indexed is indexed and marked reconciled. At-least-once delivery is safe: a
// batch is indexed once, and a job that finds nothing left to do ends. Jobs of one RTO take turns on an
// advisory lock. On PostgreSQL a batch is indexed in one transaction of its own; on the embedded
// database in steps, each its own short transaction with an event-loop turn between, so the service
// answers requests meanwhile (reconciliation-index-steps.repo.ts, issue 30).
import { sql } from 'kysely'
import { transactionsRunAlone, type Db, type Tx } from '../../platform/db/database.ts'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { batchSubject, markBatchReconciled, nextBatchToReconcile } from '../batches/index.ts'
import { recordEvent } from '../events/index.ts'
import { clearStagedLinks, indexSubmission, stageLinks, type StagedSubmission } from './reconciliation-index.repo.ts'
import { DEFAULT_SLICE_RECORDS, indexingStep, keptProgress, startIndexing } from './reconciliation-index-steps.repo.ts'

export interface ReconcileJobData {
  rto: string
}

export interface ReconcileJobOptions {
  /** Records per step of the stepped indexing (RECONCILIATION_SLICE_RECORDS). */
  sliceRecords?: number
  /** Index in steps: the default on the embedded database only (a test asks for them on PostgreSQL). */
  steps?: boolean
  /**
   * Tests only: awaited after each committed step, with its number (from 1 in each run of the job) and
   * what it did (a step's name, 'start' or 'cleared'); a test fails a run there.
   */
  afterStep?: (step: number, ran: string) => Promise<void>
}

/** The indexing job, and what submit can start beside its transaction to shorten it. */
export interface ReconcileJob extends JobDefinition<ReconcileJobData> {
  /**
   * Called by submit once it holds the batch's lock and knows the submission's time: starts, on a
   * connection of its own and never awaited, what the indexing can do before the submission commits
   * (the links of the batch's records, staged). Absent where transactions run alone (the embedded
   * database: a second transaction would only wait for the submit's). Nothing depends on it finishing:
   * the indexing reads the batch itself when it finds no stage.
   */
  prepare?: (submission: StagedSubmission) => void
  /** Resolves once every stage started by `prepare` has ended: the service waits for it before closing the database. */
  settled(): Promise<void>
}

export function reconciliationJob(db: Db, options: ReconcileJobOptions = {}): ReconcileJob {
  const steps = options.steps ?? transactionsRunAlone(db)
  const sliceRecords = options.sliceRecords ?? DEFAULT_SLICE_RECORDS
  // Stages in flight: a service closing waits for them rather than ending the pool under one.
  const staging = new Map<Promise<void>, string>()
  /** Once this process's stages (of one RTO, or every one) have ended. */
  const settled = async (rto?: string) => {
    await Promise.all([...staging].filter(([, of]) => rto === undefined || of === rto).map(([stage]) => stage))
  }
  return {
    name: 'reconcile-submissions',
    heartbeat: true,
    retryLimit: 10,
    rtoOf: (data) => data.rto, // one RTO's runs take turns; other RTOs' go ahead (issue 21, fairness)
    async handle({ rto }) {
      if (steps) {
        for (let step = 1; ; step++) {
          const ran = await db.transaction().execute((tx) => nextIndexingStep(tx, rto, sliceRecords))
          if (!ran) return
          await options.afterStep?.(step, ran)
          // A turn of the event loop: requests waiting on the one connection go first.
          await new Promise((resolve) => setImmediate(resolve))
        }
      }
      for (;;) {
        const indexed = await db.transaction().execute((tx) => indexNextSubmission(tx, rto))
        if (!indexed) return
        // After the commit, outside the lag: the stage is not needed any more. A stage this process
        // is still writing (slower than the indexing, which then read the bodies) is waited for, so
        // that it goes too; one written by another process goes with the RTO's next indexing.
        await settled(rto)
        await clearStagedLinks(db, { rto, ...indexed })
      }
    },
    // Not where the indexing runs in steps (they read the bodies), nor where transactions run alone.
    ...(steps || transactionsRunAlone(db)
      ? {}
      : {
          prepare: (submission: StagedSubmission) => {
            // A stage that fails (the database went away) is a stage not used.
            const stage: Promise<void> = db
              .transaction()
              .execute((tx) => stageLinks(tx, submission))
              .catch(() => {})
              .finally(() => staging.delete(stage))
            staging.set(stage, submission.rto)
          },
        }),
    settled: () => settled(),
  }
}

/** Indexes the RTO's oldest submitted batch not yet reconciled: which it was; false when there is none. */
export async function indexNextSubmission(tx: Tx, rto: string): Promise<{ token: string; submittedAt: Date } | false> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:reconcile:${rto}`}))`.execute(tx)
  const next = await nextBatchToReconcile(tx, rto)
  if (!next) return false
  await indexSubmission(tx, { rto, token: next.token, submittedAt: next.submittedAt })
  await markReconciled(tx, rto, next)
  return { token: next.token, submittedAt: next.submittedAt }
}

async function markReconciled(
  tx: Tx,
  rto: string,
  batch: { token: string; jurisdiction: string; submittedAt: Date },
): Promise<void> {
  await markBatchReconciled(tx, rto, batch.token)
  await recordEvent(tx, {
    rto,
    type: 'au.gov.vetrs.batch.reconciled',
    subject: batchSubject(batch.jurisdiction, batch.token),
    jurisdiction: batch.jurisdiction,
    data: { transactionBatchToken: batch.token, submittedAt: batch.submittedAt.toISOString() },
  })
}

/**
 * One step of the RTO's indexing in steps, in this transaction: the step its kept progress has
 * reached, or the start of its oldest batch not yet reconciled. What it ran (the step's name, 'start',
 * or 'cleared' when the progress is gone); false when there is nothing to do.
 */
export async function nextIndexingStep(tx: Tx, rto: string, sliceRecords: number): Promise<string | false> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`vetrs:reconcile:${rto}`}))`.execute(tx)
  const progress = await keptProgress(tx, rto)
  if (!progress) {
    const next = await nextBatchToReconcile(tx, rto)
    if (!next) return false
    await startIndexing(tx, rto, next)
    return 'start'
  }
  const outcome = await indexingStep(tx, progress, sliceRecords)
  if (outcome === 'indexed') await markReconciled(tx, rto, progress)
  return outcome === 'done' ? 'cleared' : progress.step
}

/**
 * Indexes every submission of the RTO still waiting, in this transaction: bulk loads have no queue to
 * wait for. `afterSteps`: on the embedded database a stepped indexing may be under way for the RTO;
 * it is finished first (in this transaction too), or its batch would be indexed again from half-kept work.
 */
export async function indexPendingSubmissions(tx: Tx, rto: string, { afterSteps = false } = {}): Promise<void> {
  if (afterSteps) while (await keptProgress(tx, rto)) await nextIndexingStep(tx, rto, DEFAULT_SLICE_RECORDS)
  while (await indexNextSubmission(tx, rto)) {
    /* next batch */
  }
}
