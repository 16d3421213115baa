// NAT imports as queued jobs (issue 31 item 8): POST .../nat-import checks what can be checked at
// once (an empty body, the zip's directory: not a zip, an unsafe entry name, no NAT file, too much),
// then stores the zip with a Queued row and enqueues the nat-import job, in one transaction. The job
// reads, maps and stores the set (importNatSet), recording its progress, and ends Completed with the
// batch it made or Failed with the problem the synchronous answer would have been. Jobs of one RTO
// take turns (the queue's per-RTO group); other RTOs' run beside them, at most QUEUE_JOBS_PER_QUEUE a
// process. docs/decisions.md, "NAT imports: bounded, fair jobs with progress (issue 31 items 8-9)".
import { randomUUID } from 'node:crypto'
import { DomainError, type ErrorKind, NotFoundError } from '../../domain/errors.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import type { Db } from '../../platform/db/database.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { inspectNatZip, NatZipEntryNameError, NatZipTooLargeError } from './avetmiss.ts'
import { DEFAULT_NAT_FILES_BYTES, importNatSet, type NatImportResult } from './nat-bridge.service.ts'
import { natImportSummaryOf } from './nat-import-results.service.ts'
import { discardBatch } from '../batches/index.ts'
import * as repo from './nat-import-job.repo.ts'

export interface NatImportJobData {
  rto: string
  importId: string
}

/** What GET .../nat-import/{importId} answers: where the import is, and how it ended. */
export interface NatImportStatus {
  importId: string
  jurisdiction: string
  status: repo.NatImportJobStatus
  queuedAt: string
  startedAt?: string
  finishedAt?: string
  progress: repo.NatImportProgress
  /** The batch the import made (Completed). */
  transactionBatchToken?: string
  /** What the import answered (Completed): as GET .../transaction-batch/{token}/nat-import. */
  result?: NatImportResult
  /** Why nothing was stored (Failed): the problem the import's request would have answered. */
  problem?: { kind: ErrorKind; detail: string }
}

/** Attempts after the first when the import fails other than by a refusal. */
const RETRY_LIMIT = 2

/** Progress is written at most this often (and at each stage's change). */
const PROGRESS_EVERY_MS = 500

export interface NatImportJobOptions {
  /** Most bytes a zip's NAT files may hold uncompressed (LIMIT_NAT_FILES_BYTES). */
  natFilesBytes?: number
  /**
   * Test hook, unset in the service: called with each progress the import tells. A test throws from
   * it (at stage 'done': the batch, its records and its nat_import row written) as a worker dying
   * part-way would, to see the job retried and, on its last attempt, ended Failed with nothing stored.
   */
  onProgress?: (progress: repo.NatImportProgress, data: NatImportJobData) => void
  /**
   * Test hook, unset in the service: awaited once the import has stored its batch, before the job
   * ends Completed. A test throws from it as a worker dying in that gap would.
   */
  afterImport?: (data: NatImportJobData) => Promise<void>
}

/** The queue's job that runs one NAT import. */
export function natImportJob(db: Db, options: NatImportJobOptions = {}): JobDefinition<NatImportJobData> {
  return {
    name: 'nat-import',
    heartbeat: true,
    retryLimit: RETRY_LIMIT,
    rtoOf: (data) => data.rto, // one RTO's imports take turns; other RTOs' go ahead (fairness)
    handle: async ({ rto, importId }, job) => {
      const started = await repo.startNatImportJob(db, rto, importId)
      if (!started) return // finished already: a redelivery does nothing
      const actor: Actor = { rto, clientId: started.clientId, scopes: new Set([Scopes.report]) }
      let batch: string | undefined
      let last = 0
      let lastStage: string | undefined
      let progress: repo.NatImportProgress = {}
      let writing: Promise<void> = Promise.resolve()
      const onProgress = (next: repo.NatImportProgress) => {
        options.onProgress?.(next, { rto, importId })
        progress = next
        const now = Date.now()
        if (now - last < PROGRESS_EVERY_MS && next.stage === lastStage) return
        last = now
        lastStage = next.stage
        writing = writing.then(() => repo.recordNatImportProgress(db, rto, importId, next)).catch(() => {})
      }
      try {
        // An earlier attempt that died before its own discard (the process killed, or a failure after
        // its batch was stored) left its batch: it goes first, so the import stores one batch or none.
        if (started.earlierBatch) await discardAttemptBatch(db, actor, started.jurisdiction, started.earlierBatch)
        const result = await importNatSet(db, actor, started.jurisdiction, started.zip, {
          maxFilesBytes: options.natFilesBytes ?? DEFAULT_NAT_FILES_BYTES,
          onProgress,
          onBatch: async (token) => {
            batch = token
            await repo.recordNatImportBatch(db, rto, importId, token)
          },
        })
        await options.afterImport?.({ rto, importId })
        await writing
        await repo.finishNatImportJob(db, rto, importId, { token: result.transactionBatchToken, progress })
      } catch (error) {
        await writing
        // A refusal is the import's answer; anything else is retried by the queue (a worker's crash,
        // the database away), and told as an internal error only on the last attempt.
        if (error instanceof DomainError)
          return repo.finishNatImportJob(db, rto, importId, {
            problem: { kind: error.kind, detail: error.message },
            progress,
          })
        if ((job?.retryCount ?? 0) >= RETRY_LIMIT) {
          // Nothing stored, as the problem says: a batch this attempt stored goes too.
          if (batch) await discardAttemptBatch(db, actor, started.jurisdiction, batch).catch(() => {})
          await repo
            .finishNatImportJob(db, rto, importId, {
              problem: {
                kind: 'internal-error',
                detail: `An unexpected error stopped NAT import ${importId} on the service, ${RETRY_LIMIT + 1} times; nothing was stored. Import the files again; if it happens again, tell the service's operator (its background jobs list the failure).`,
              },
              progress,
            })
            .catch(() => {})
        }
        throw error
      }
    },
  }
}

/** Discards a batch an attempt of the import made; one already gone (discarded by the attempt itself) is fine. */
async function discardAttemptBatch(db: Db, actor: Actor, jurisdiction: string, token: string): Promise<void> {
  try {
    await discardBatch(db, actor, { token, jurisdiction })
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
  }
}

/**
 * Queues a NAT import of the caller's RTO: what the zip's directory refuses is refused at once
 * (nat-set-unreadable, nat-set-too-large) and nothing is stored; otherwise the zip is stored with the
 * import's row and its job enqueued, in one transaction.
 */
export async function requestNatImport(
  deps: { db: Db; queue: Queue; job: JobDefinition<NatImportJobData> },
  actor: Actor,
  jurisdiction: string,
  zip: Uint8Array,
  options: { maxFilesBytes?: number } = {},
): Promise<NatImportStatus> {
  if (zip.length === 0)
    throw new DomainError('nat-set-unreadable', 'The body is empty: send the NAT files as a zip. Nothing was stored.')
  let directory: ReturnType<typeof inspectNatZip>
  try {
    directory = inspectNatZip(zip, { maxUncompressedBytes: options.maxFilesBytes ?? DEFAULT_NAT_FILES_BYTES })
  } catch (error) {
    const message = (error as Error).message
    if (error instanceof NatZipTooLargeError)
      throw new DomainError('nat-set-too-large', `${message} Nothing was stored.`)
    if (error instanceof NatZipEntryNameError)
      throw new DomainError('nat-set-unreadable', `${message}. Nothing was stored.`)
    throw new DomainError('nat-set-unreadable', `${message}. Send the NAT files as a zip. Nothing was stored.`)
  }
  if (directory.natFiles.length === 0)
    throw new DomainError(
      'nat-set-unreadable',
      `The zip holds no AVETMISS NAT file (NAT00010.txt ... NAT00130.txt)${
        directory.ignoredFiles.length > 0 ? `, only ${directory.ignoredFiles.slice(0, 5).join(', ')}` : ''
      }. Nothing was stored.`,
    )
  const importId = randomUUID()
  await deps.db.transaction().execute(async (tx) => {
    await repo.insertNatImportJob(tx, { rto: actor.rto, importId, jurisdiction, clientId: actor.clientId, zip })
    await deps.queue.enqueue(tx, deps.job, { rto: actor.rto, importId })
  })
  return natImportStatus(deps.db, actor, jurisdiction, importId)
}

/** The caller's import: queued, running with its progress, completed with its answer, or failed with its problem. */
export async function natImportStatus(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  importId: string,
): Promise<NatImportStatus> {
  const row = UUID.test(importId) ? await repo.findNatImportJob(db, actor.rto, importId) : undefined
  if (!row || row.jurisdiction !== jurisdiction)
    throw new NotFoundError(`No NAT import ${importId} of the caller's RTO under ${jurisdiction}.`)
  const result =
    row.status === 'Completed' && row.transactionBatchToken
      ? await natImportSummaryOf(db, actor, { token: row.transactionBatchToken, jurisdiction }).catch(() => undefined)
      : undefined
  return {
    importId: row.importId,
    jurisdiction: row.jurisdiction,
    status: row.status,
    queuedAt: row.queuedAt,
    ...(row.startedAt ? { startedAt: row.startedAt } : {}),
    ...(row.finishedAt ? { finishedAt: row.finishedAt } : {}),
    progress: row.progress,
    // A Running import's batch is an attempt's, not yet the import's answer.
    ...(row.status === 'Completed' && row.transactionBatchToken
      ? { transactionBatchToken: row.transactionBatchToken }
      : {}),
    ...(result ? { result } : {}),
    ...(row.problem ? { problem: { kind: row.problem.kind as ErrorKind, detail: row.problem.detail } } : {}),
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Waits for the caller's import to finish (the synchronous answer): its result, or its refusal thrown
 * as the DomainError the import's request would have answered. Polls the import's row; after
 * `maxWaitMs` (no worker running the queue, or a very long queue) says where to follow it instead.
 */
export async function awaitNatImport(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  importId: string,
  { pollMs = 100, maxWaitMs = MAX_WAIT_MS }: { pollMs?: number; maxWaitMs?: number } = {},
): Promise<NatImportResult> {
  const until = Date.now() + maxWaitMs
  for (let wait = pollMs; ; wait = Math.min(wait * 2, 1000)) {
    const status = await natImportStatus(db, actor, jurisdiction, importId)
    if (status.status === 'Completed' && status.result) return status.result
    if (status.status === 'Failed' && status.problem) throw new DomainError(status.problem.kind, status.problem.detail)
    if (Date.now() >= until)
      throw new DomainError(
        'service-unavailable',
        `The NAT import ${importId} is ${status.status === 'Queued' ? 'still queued' : 'still running'} after ${Math.round(maxWaitMs / 1000)} s: follow it at GET .../${jurisdiction}/nat-import/${importId} (or send the import with Prefer: respond-async).`,
      )
    await new Promise((resolve) => setTimeout(resolve, wait))
  }
}

/** How long a synchronous import request waits for its job. */
const MAX_WAIT_MS = 10 * 60 * 1000
