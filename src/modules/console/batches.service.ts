// An RTO's batches: the list (where each came from, its counts and validation), one batch with its failed
// results per rule and a page of them with the records' content, the CSV of them, validate and discard.
// Submitting and NAT imports are submit-and-nat.service.ts.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { Page } from '../../domain/page.ts'
import { type FieldLine, neighboursOf, recordLabel, valueAt } from './record-content.ts'
import {
  discardBatch as discardTransactionBatch,
  findBatches,
  getBatch,
  readRecords,
  type BatchDetail,
  type BatchFilter,
  type BatchRef,
  type BatchSummary,
} from '../batches/index.ts'
import {
  cancelValidation,
  failedResultsByRule,
  getValidationStatus,
  listFailedResults,
  requestValidation,
  type FailedResultsOfRule,
  type ResultFilter,
  type ValidationResult,
  type ValidationStatus,
} from '../validation/index.ts'
import { currentHeldVersions, submitUnderWay } from '../holdings/index.ts'
import { natFileNamesOf, natImportSummaryOf, type NatImportResult } from '../nat-bridge/index.ts'
import { RESULTS_PAGE_SIZE, UID_PATTERN, unlessNone, type ConsoleDependencies } from './console-shared.ts'

export interface BatchListEntry extends BatchDetail {
  validation: ValidationStatus | null
}

/** Where a batch came from: an SMS's API client, or the console; and the NAT files when a NAT import made it. */
export interface BatchSource {
  via: 'console' | 'sms'
  /** The SMS's API client id (for a batch an SMS made). */
  clientId: string | undefined
  /** The NAT file names a NAT import made the batch from; undefined when no NAT import made it. */
  natFiles: string[] | undefined
}

export interface BatchListRow extends BatchListEntry {
  source: BatchSource
}

/** The console's own API client ids start so (console-people's actorFor). */
const CONSOLE_CLIENT_PREFIX = 'console:'

/**
 * A page of the RTO's batches the filter keeps, newest first, each with where it came from, its record
 * counts and validation status.
 */
export async function batchesPage(
  db: Db,
  actor: Actor,
  filter: Omit<BatchFilter, 'jurisdiction'>,
  pageNumber: number,
): Promise<Page<BatchListRow> & { searchComplete: boolean }> {
  const page = await findBatches(db, actor, filter, { pageNumber, pageSize: 20 })
  const natFiles = await natFileNamesOf(
    db,
    actor,
    page.results.map((b) => b.transactionBatchToken),
  )
  const results: BatchListRow[] = []
  for (const summary of page.results) {
    const viaConsole = summary.createdByClient.startsWith(CONSOLE_CLIENT_PREFIX)
    results.push({
      ...(await batchWithStatus(db, actor, refOf(summary))),
      source: {
        via: viaConsole ? 'console' : 'sms',
        clientId: viaConsole ? undefined : summary.createdByClient,
        natFiles: natFiles.get(summary.transactionBatchToken),
      },
    })
  }
  return { ...page, results }
}

/** The caller's batch with its record counts; 404 when not theirs. */
export function batchOf(db: Db, actor: Actor, ref: BatchRef): Promise<BatchDetail> {
  return getBatch(db, actor, ref)
}

/** Discards a batch not submitted, with everything in it: the API's DELETE on a batch. */
export function discardBatch(db: Db, actor: Actor, ref: BatchRef): Promise<void> {
  return discardTransactionBatch(db, actor, ref)
}

export interface BatchView {
  batch: BatchListEntry
  /** Failed results per rule of the latest completed validation; undefined before any has completed. */
  rules: FailedResultsOfRule[] | undefined
  results: Page<ValidationResult> | undefined
  /** What the NAT import that made the batch answered; undefined for a batch an SMS reported. */
  natImport: NatImportResult | undefined
  /** Each result of the page as people read it (by its index): who or what the record is, and the failing fields' values. */
  content: ResultContent[]
  /** The id of a submit of the batch that is queued or running: the page leads to it instead of offering Submit. */
  submitUnderWay: string | undefined
}

export interface ResultContent {
  label: { title: string; details: string[] } | undefined
  /** Each access path of the result with the record's value there (undefined: the record gives none). */
  values: { path: string; value: string | undefined }[]
  /** The fields beside the failing ones in the record (record-content.ts, neighboursOf). */
  neighbours: FieldLine[]
}

/**
 * The content behind a page of failed results: the batch's records for results about the batch, the
 * current held versions for results about records submitted before; two reads for the whole page.
 */
async function contentOf(db: Db, actor: Actor, ref: BatchRef, results: ValidationResult[]): Promise<ResultContent[]> {
  const keyOf = (r: { resourceType: string; resourceUID: string }) => `${r.resourceType}/${r.resourceUID.toLowerCase()}`
  const wanted = results.filter((r) => UID_PATTERN.test(r.resourceUID))
  const fromBatch = wanted.filter((r) => r.dataSource === 'Transaction_batch')
  const fromHeld = wanted.filter((r) => r.dataSource !== 'Transaction_batch')
  const [batchBodies, held] = await Promise.all([
    readRecords(db, actor, ref, fromBatch),
    currentHeldVersions(db, actor, fromHeld),
  ])
  return results.map((r) => {
    const body = r.dataSource === 'Transaction_batch' ? batchBodies.get(keyOf(r)) : held.get(keyOf(r))?.body
    const record = (body ?? {}) as Record<string, unknown>
    return {
      label: body ? recordLabel(r.resourceType, record) : undefined,
      values: r.accessPath.map((path) => ({ path, value: body ? valueAt(body, path) : undefined })),
      neighbours: body ? neighboursOf(body, r.accessPath) : [],
    }
  })
}

/** One batch: its counts and status, its failed results per rule, and a page of them as filtered. */
export async function batchView(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  filter: ResultFilter,
  pageNumber: number,
): Promise<BatchView> {
  const batch = await batchWithStatus(db, actor, ref)
  const [rules, results, natImport, underWay] = await Promise.all([
    unlessNone('no-validation-run', failedResultsByRule(db, actor, ref)),
    unlessNone(
      'no-validation-run',
      listFailedResults(db, actor, ref, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, filter),
    ),
    natImportSummaryOf(db, actor, ref),
    batch.status === 'NotSubmitted' ? submitUnderWay(db, actor, batch.transactionBatchToken) : undefined,
  ])
  const content = results ? await contentOf(db, actor, ref, results.results) : []
  return { batch, rules, results, natImport, content, submitUnderWay: underWay }
}

/** Every failed result the filter keeps, a page at a time (the CSV download). */
export async function* allFailedResults(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  filter: ResultFilter,
): AsyncGenerator<ValidationResult> {
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await listFailedResults(db, actor, ref, { pageNumber, pageSize: 500 }, filter)
    yield* page.results
    if (pageNumber >= page.numberOfPages) return
  }
}

export function validateBatch(deps: ConsoleDependencies, actor: Actor, ref: BatchRef) {
  return requestValidation({ db: deps.db, queue: deps.queue, job: deps.validationJob }, actor, ref)
}

/** Cancels the batch's Queued or InProgress validation (the API's DELETE .../validate). */
export function cancelBatchValidation(db: Db, actor: Actor, ref: BatchRef) {
  return cancelValidation(db, actor, ref)
}

/** The batch's validation status; undefined when none has been requested. */
export function validationStatusOf(db: Db, actor: Actor, ref: BatchRef): Promise<ValidationStatus | undefined> {
  return unlessNone('no-validation-run', getValidationStatus(db, actor, ref))
}

async function batchWithStatus(db: Db, actor: Actor, ref: BatchRef): Promise<BatchListEntry> {
  const [batch, validation] = await Promise.all([
    getBatch(db, actor, ref),
    unlessNone('no-validation-run', getValidationStatus(db, actor, ref)),
  ])
  return { ...batch, validation: validation ?? null }
}

const refOf = (summary: BatchSummary): BatchRef => ({
  token: summary.transactionBatchToken,
  jurisdiction: summary.jurisdiction,
})
