// The console's submit as a queued job (issue 32 item 3): a press of Submit stores a Queued row and
// enqueues the submit job, in one transaction, and the console answers at once with the submit's status
// page (or, when the job ends within a few seconds, with its answer as before). The job runs the same
// use case as the API's submit (submitBatch, with the same conditions) and marks its row Submitted in
// that very transaction, so a batch is submitted exactly when its job says so: a worker that dies
// part-way leaves nothing applied and the queue delivers the job again (heartbeat), and on its last
// attempt it ends Failed, never half-submitted. A refusal (the batch changed, blocking failures, the
// NAT acknowledgement missing) ends it Failed at once with the refusal. Jobs of one RTO take turns (the
// queue's per-RTO group). docs/decisions.md, "The console's submit as a queued job (issue 32 item 3)".
import { randomUUID } from 'node:crypto'
import { DomainError, NotFoundError } from '../../domain/errors.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import type { Db } from '../../platform/db/database.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { isBatchReconciled, requireBatch, type BatchRef } from '../batches/index.ts'
import type { SubmittedBatch } from './holdings.schemas.ts'
import { submitBatch, type SubmitDependencies, type SubmitRequest } from './submit.service.ts'
import * as repo from './submit-job.repo.ts'

export interface SubmitJobData {
  rto: string
  submitId: string
}

/** What the console's submit status page says: where the submit is, and how it ended. */
export interface SubmitStatus {
  submitId: string
  jurisdiction: string
  transactionBatchToken: string
  status: repo.SubmitJobStatus
  /** While Running: what it is doing. */
  stage: repo.SubmitStage | undefined
  /** Attempts started (more than one: a worker died and the queue ran it again). */
  attempts: number
  queuedAt: string
  startedAt: string | undefined
  finishedAt: string | undefined
  /** What was submitted (Submitted). */
  result: SubmittedBatch | undefined
  /** Submitted and indexed for reconciliation (which follows the submit in its own job). */
  indexed: boolean
  /** Why nothing was submitted (Failed): the refusal the API's submit would have answered. */
  problem: repo.SubmitJobProblem | undefined
}

export interface SubmitJobOptions extends Omit<SubmitDependencies, 'queue'> {
  /** The queue reconciliation's indexing is enqueued on: built after its jobs, so asked for when a job runs. */
  queue: () => Queue
  /** Awaited as each stage starts ('checking' before the transaction, the others inside it): tests hold or crash a submit there. */
  afterStage?: (stage: repo.SubmitStage, data: SubmitJobData) => Promise<void>
}

/** Attempts after the first when the submit fails other than by a refusal (a worker died, the database went away). */
const RETRY_LIMIT = 2

/** The queue's job that runs one console submit. */
export function submitJob(options: SubmitJobOptions): JobDefinition<SubmitJobData> {
  const { db } = options
  return {
    name: 'submit',
    heartbeat: true,
    retryLimit: RETRY_LIMIT,
    rtoOf: (data) => data.rto, // one RTO's submits take turns, as its submissions are serialised anyway
    handle: async (data, job) => {
      const { rto, submitId } = data
      const started = await repo.startSubmitJob(db, rto, submitId)
      if (!started) return // finished already: a redelivery does nothing
      const actor: Actor = { rto, clientId: started.clientId, scopes: new Set([Scopes.report]) }
      // The stage is written beside the submit's transaction, never awaited inside it: PostgreSQL shows
      // it at once; the embedded database's one connection writes it after the commit, when the row is
      // no longer Running and the write changes nothing.
      let writing: Promise<void> = Promise.resolve()
      const onStage = async (stage: repo.SubmitStage) => {
        writing = writing.then(() => repo.recordSubmitStage(db, rto, submitId, stage)).catch(() => {})
        await options.afterStage?.(stage, data)
      }
      const request: SubmitRequest =
        started.acknowledgeDropped === null ? {} : { acknowledgeDropped: started.acknowledgeDropped }
      try {
        await options.afterStage?.('checking', data)
        await submitBatch(
          { ...options, queue: options.queue() },
          actor,
          { token: started.transactionBatchToken, jurisdiction: started.jurisdiction },
          request,
          {
            onStage,
            // The row says Submitted in the submit's own transaction: both commit, or neither.
            beforeCommit: (tx, submitted) => repo.finishSubmitJob(tx, rto, submitId, { result: submitted }),
          },
        )
        await writing
      } catch (error) {
        await writing
        // A refusal is the submit's answer; anything else is retried by the queue, and said as an
        // internal error only on the last attempt. Nothing was submitted either way (one transaction).
        if (error instanceof DomainError) return repo.finishSubmitJob(db, rto, submitId, { problem: problemOf(error) })
        if ((job?.retryCount ?? 0) >= RETRY_LIMIT)
          await repo
            .finishSubmitJob(db, rto, submitId, {
              problem: {
                kind: 'internal-error',
                detail: `An unexpected error stopped the submit of batch ${started.transactionBatchToken} on the service, ${RETRY_LIMIT + 1} times; nothing was submitted. Submit the batch again; if it happens again, tell the service's operator (its background jobs list the failure).`,
              },
            })
            .catch(() => {})
        throw error
      }
    },
  }
}

function problemOf(error: DomainError): repo.SubmitJobProblem {
  const { reason, droppedCount } = error.extensions
  return {
    kind: error.kind,
    detail: error.message,
    ...(reason ? { reason } : {}),
    ...(droppedCount !== undefined ? { droppedCount } : {}),
  }
}

/**
 * Queues a submit of the caller's batch (404 for another RTO's or none) and answers its id. A batch
 * with a submit already queued or running gets that one's id and nothing new is queued: a second
 * press submits nothing twice (and a press after the batch is submitted ends Failed: already submitted).
 */
export async function requestSubmit(
  deps: { db: Db; queue: Queue; job: JobDefinition<SubmitJobData> },
  actor: Actor,
  ref: BatchRef,
  request: SubmitRequest = {},
): Promise<string> {
  const batch = await requireBatch(deps.db, actor, ref)
  const token = batch.transaction_batch_token
  for (let attempt = 0; ; attempt++) {
    const submitId = await deps.db.transaction().execute(async (tx) => {
      const submitId = randomUUID()
      const row = {
        rto: actor.rto,
        submitId,
        jurisdiction: batch.jurisdiction,
        token,
        clientId: actor.clientId,
        acknowledgeDropped: request.acknowledgeDropped,
      }
      if (await repo.insertSubmitJob(tx, row)) {
        await deps.queue.enqueue(tx, deps.job, { rto: actor.rto, submitId })
        return submitId
      }
      return repo.unfinishedSubmitJobOf(tx, actor.rto, token)
    })
    // Undefined only when the unfinished one ended between the two statements: ask again.
    if (submitId !== undefined) return submitId
    if (attempt >= 2) throw new Error(`could not queue a submit of batch ${token}`)
  }
}

/** The id of the caller's submit of the batch that is queued or running, if any (the batch's page leads to it). */
export function submitUnderWay(db: Db, actor: Actor, token: string): Promise<string | undefined> {
  return repo.unfinishedSubmitJobOf(db, actor.rto, token)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The caller's submit (404 for another RTO's, another jurisdiction's or none). */
export async function submitStatus(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  submitId: string,
): Promise<SubmitStatus> {
  const row = UUID.test(submitId) ? await repo.findSubmitJob(db, actor.rto, submitId) : undefined
  if (!row || row.jurisdiction !== jurisdiction)
    throw new NotFoundError(`No submit ${submitId} of the caller's RTO under ${jurisdiction}.`)
  const indexed = row.status === 'Submitted' && (await isBatchReconciled(db, actor.rto, row.transactionBatchToken))
  return {
    submitId: row.submitId,
    jurisdiction: row.jurisdiction,
    transactionBatchToken: row.transactionBatchToken,
    status: row.status,
    stage: row.status === 'Running' ? (row.stage ?? 'checking') : undefined,
    attempts: row.attempts,
    queuedAt: row.queuedAt,
    startedAt: row.startedAt ?? undefined,
    finishedAt: row.finishedAt ?? undefined,
    result: row.result ?? undefined,
    indexed,
    problem: row.problem ?? undefined,
  }
}
