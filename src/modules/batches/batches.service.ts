// Transaction batch use cases: create, read, list, discard, and the rules every change to a batch's
// content obeys (the batch is the caller's, of the route's jurisdiction, and not yet submitted).
import { randomBytes } from 'node:crypto'
import type { Db, Reader, Tx } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { ConflictError, NotFoundError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { recordEvent } from '../events/index.ts'
import * as batches from './batches.repo.ts'
import * as records from './batch-records.repo.ts'
import type { BatchDetail, BatchSummary } from './batches.schemas.ts'

/** A batch as a route names it: the token, and the jurisdiction segment when the route has one. */
export interface BatchRef {
  token: string
  jurisdiction: string | undefined
}

export function newBatchToken(): string {
  // 192 bits: unguessable, URL-safe, opaque. Never starting with '-': pasted after a command (`vetrs
  // submit <token>`, a shell script) a leading '-' is read as an option, as one in 64 tokens were.
  for (;;) {
    const token = randomBytes(24).toString('base64url')
    if (!token.startsWith('-')) return token
  }
}

export async function createBatch(db: Db, actor: Actor, jurisdiction: string): Promise<BatchSummary> {
  const row = await db.transaction().execute(async (tx) => {
    const inserted = await batches.insertBatch(tx, {
      rto: actor.rto,
      token: newBatchToken(),
      jurisdiction,
      clientId: actor.clientId,
    })
    await recordEvent(tx, {
      rto: actor.rto,
      type: 'au.gov.vetrs.batch.created',
      subject: batchSubject(jurisdiction, inserted.transaction_batch_token),
      jurisdiction,
      data: { transactionBatchToken: inserted.transaction_batch_token, clientId: actor.clientId },
    })
    return inserted
  })
  return toSummary(row)
}

/** The subject of a batch's events: its path under the API, after the prefix. */
export function batchSubject(jurisdiction: string, token: string): string {
  return `${jurisdiction}/transaction-batch/${token}`
}

export async function getBatch(db: Db, actor: Actor, ref: BatchRef): Promise<BatchDetail> {
  const batch = await requireBatch(db, actor, ref)
  const [counts, lastUpload] = await Promise.all([
    records.countRecordsByType(db, actor.rto, batch.transaction_batch_token),
    records.lastUpload(db, actor.rto, batch.transaction_batch_token),
  ])
  const recordCounts = Object.fromEntries(resourceTypes.map((type) => [type, counts.get(type) ?? 0]))
  const summary = toSummary(batch)
  const updatedAt =
    lastUpload && lastUpload.toISOString() > summary.updatedAt ? lastUpload.toISOString() : summary.updatedAt
  return {
    ...summary,
    updatedAt,
    recordCounts,
    totalRecords: [...counts.values()].reduce((sum, n) => sum + n, 0),
    reconciledAt: batch.reconciled_at ? new Date(batch.reconciled_at).toISOString() : null,
  }
}

export async function listBatches(
  db: Db,
  actor: Actor,
  jurisdiction: string | undefined,
  page: PageQuery,
): Promise<Page<BatchSummary>> {
  const [total, rows] = await Promise.all([
    batches.countBatches(db, actor.rto, { jurisdiction }),
    batches.listBatches(db, actor.rto, { jurisdiction }, page.pageSize, offsetOf(page)),
  ])
  return toPage(rows.map(toSummary), total, page)
}

/** The caller's newest batch under the jurisdiction, if any: the first row of listBatches, without its count. */
export async function latestBatch(db: Db, actor: Actor, jurisdiction: string): Promise<BatchSummary | undefined> {
  const [row] = await batches.listBatches(db, actor.rto, { jurisdiction }, 1, 0)
  return row && toSummary(row)
}

/** A batch as the console lists it: with the API client (or console person) that created it. */
export type BatchWithCreator = BatchSummary & { createdByClient: string }

/**
 * The caller's batches the filter keeps (status, token prefix, jurisdiction, a record held), newest
 * first, each with its creator. `searchComplete` is false when the words match more records than a
 * search reads (BATCH_SEARCH_RECORD_LIMIT): the batches are then those holding the records read.
 */
export async function findBatches(
  db: Db,
  actor: Actor,
  filter: batches.BatchFilter,
  page: PageQuery,
): Promise<Page<BatchWithCreator> & { searchComplete: boolean }> {
  // The batches holding the words are found once (one bounded probe of the search index), then the
  // count and the page read only those.
  const { holding, ...rest } = filter
  const found =
    holding !== undefined && holding.length > 0 ? await batches.batchesHolding(db, actor.rto, holding) : undefined
  const resolved: batches.ResolvedBatchFilter = found ? { ...rest, tokens: found.tokens } : rest
  const [total, rows] = await Promise.all([
    batches.countBatches(db, actor.rto, resolved),
    batches.listBatches(db, actor.rto, resolved, page.pageSize, offsetOf(page)),
  ])
  return {
    ...toPage(
      rows.map((row) => ({ ...toSummary(row), createdByClient: row.created_by_client })),
      total,
      page,
    ),
    searchComplete: found?.complete ?? true,
  }
}

export async function discardBatch(db: Db, actor: Actor, ref: BatchRef): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const batch = await lockOpenBatch(tx, actor, ref)
    await batches.deleteBatch(tx, actor.rto, batch.transaction_batch_token)
    await recordEvent(tx, {
      rto: actor.rto,
      type: 'au.gov.vetrs.batch.discarded',
      subject: batchSubject(batch.jurisdiction, batch.transaction_batch_token),
      jurisdiction: batch.jurisdiction,
      data: { transactionBatchToken: batch.transaction_batch_token, clientId: actor.clientId },
    })
  })
}

/** The caller's batch under this route, or 404: another RTO's batch, or another jurisdiction's, does not exist here. */
export async function requireBatch(db: Db | Tx, actor: Actor, ref: BatchRef): Promise<batches.BatchRow> {
  const batch = await batches.findBatch(db, actor.rto, ref.token)
  if (!batch || (ref.jurisdiction !== undefined && batch.jurisdiction !== ref.jurisdiction)) {
    throw new NotFoundError(
      `No transaction batch ${ref.token}${ref.jurisdiction ? ` under ${ref.jurisdiction}` : ''} for this RTO.`,
    )
  }
  return batch
}

/** Locks the caller's batch for a change of content; 404 when not found, 409 once submitted. */
export async function lockOpenBatch(tx: Tx, actor: Actor, ref: BatchRef): Promise<batches.BatchRow> {
  const batch = await batches.lockBatch(tx, actor.rto, ref.token)
  if (!batch || (ref.jurisdiction !== undefined && batch.jurisdiction !== ref.jurisdiction))
    return requireBatch(tx, actor, ref)
  assertOpen(batch)
  return batch
}

export function assertOpen(batch: batches.BatchRow): void {
  if (batch.status !== 'NotSubmitted') {
    throw new ConflictError(
      'batch-submitted',
      `Transaction batch ${batch.transaction_batch_token} is ${batch.status}; its records can no longer change. Create a new batch.`,
    )
  }
}

export function toSummary(row: batches.BatchRow): BatchSummary {
  return {
    transactionBatchToken: row.transaction_batch_token,
    status: row.status,
    jurisdiction: row.jurisdiction as BatchSummary['jurisdiction'],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    submittedAt: row.submitted_at ? new Date(row.submitted_at).toISOString() : null,
  }
}

/** Closes the batch: Submitted, with the time. Call inside the transaction that made its records held. */
export async function markBatchSubmitted(tx: Tx, rto: string, token: string, at: Date): Promise<BatchSummary> {
  return toSummary(await batches.markSubmitted(tx, rto, token, at))
}

/** The RTO's oldest submitted batch that reconciliation does not reflect yet, if any. */
export function nextBatchToReconcile(
  tx: Tx,
  rto: string,
): Promise<{ token: string; jurisdiction: string; submittedAt: Date } | undefined> {
  return batches.oldestUnreconciledBatch(tx, rto)
}

/** Records that reconciliation now reflects the batch's submission (its reconciledAt). */
export function markBatchReconciled(tx: Tx, rto: string, token: string): Promise<void> {
  return batches.markReconciled(tx, rto, token)
}

/** The jurisdiction a batch of the RTO was created under (for events of a batch another module tells of). */
export async function jurisdictionOfBatch(db: Reader, rto: string, token: string): Promise<string> {
  const batch = await batches.findBatch(db, rto, token)
  if (!batch) throw new NotFoundError(`No transaction batch ${token} for this RTO.`)
  return batch.jurisdiction
}

/** Whether reconciliation reflects the submission of the batch yet (its reconciledAt is set). */
export async function isBatchReconciled(db: Reader, rto: string, token: string): Promise<boolean> {
  const batch = await batches.findBatch(db, rto, token)
  return batch?.reconciled_at != null
}
