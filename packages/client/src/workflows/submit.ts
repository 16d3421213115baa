// Standard workflows 1 and 2 as one call: a batch (new, or a NotSubmitted one given back), every
// record uploaded (through the bulk upload when the service offers it, else one by one with bounded
// concurrency), validation requested and polled with back-off, failed results read to the last page
// and grouped by validationGroupingId, and the batch submitted only when nothing blocks.
import type { Jurisdiction, SubmitResult, ValidationResult, ValidationStatus, VetrsOperations } from '../client.ts'
import type { RequestOptions } from '../request-options.ts'
import type { ResourceRecord } from '../resources.ts'
import { collect } from '../paging.ts'
import { pollUntil, requestOptionsOf, type WaitOptions } from './progress.ts'

export interface ResultGroup<Result> {
  /** One rule execution: every result naming the same concern. */
  groupingId: string
  results: Result[]
}

/** Failed results split by whether they block (level Error) and grouped by the concern they share. */
export interface GroupedResults<Result> {
  blocking: ResultGroup<Result>[]
  nonBlocking: ResultGroup<Result>[]
}

export interface SubmitOptions extends WaitOptions {
  jurisdiction: Jurisdiction
  /** Re-use this NotSubmitted batch (after fixing records) instead of creating one. */
  transactionBatchToken?: string
  /** Uploads in flight at once when records go one by one (default 4). */
  concurrency?: number
  /**
   * Upload through the service's bulk upload when it offers it (default), in as few requests as the
   * limits allow, or one request per record (false). See Vetrs.uploadMany.
   */
  bulk?: boolean
  /** Validate only: read the results but do not submit even when nothing blocks. */
  dryRun?: boolean
  /**
   * Return only once reconciliation reflects the submission (the batch's reconciledAt is set; the
   * service indexes a submission moments after submit answers). Default true.
   */
  awaitReconciliation?: boolean
}

export interface ValidateOutcome extends GroupedResults<ValidationResult> {
  transactionBatchToken: string
  validation: ValidationStatus
}

export interface SubmitOutcome extends ValidateOutcome {
  /** The submit answer; null when blocking failures (or dryRun) kept the batch NotSubmitted. */
  submitted: SubmitResult | null
}

export async function submitRecords(
  client: VetrsOperations,
  records: readonly ResourceRecord[],
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  const { jurisdiction, onProgress } = options
  const request = requestOptionsOf(options)
  const transactionBatchToken =
    options.transactionBatchToken ?? (await client.createBatch(jurisdiction, request)).transactionBatchToken
  onProgress?.({ phase: 'batch', transactionBatchToken, jurisdiction })
  onProgress?.({ phase: 'upload', done: 0, total: records.length })
  await client.uploadMany(jurisdiction, transactionBatchToken, records, {
    ...request,
    concurrency: options.concurrency ?? 4,
    ...(options.bulk === undefined ? {} : { bulk: options.bulk }),
    ...(onProgress ? { onProgress } : {}),
  })
  const validated = await validate(client, jurisdiction, transactionBatchToken, options)
  if (validated.validation.hasBlockingValidationFailures || options.dryRun) return { ...validated, submitted: null }
  const submitted = await client.submitBatch(jurisdiction, transactionBatchToken, request)
  onProgress?.({ phase: 'submit', status: submitted.status })
  if (options.awaitReconciliation ?? true)
    await awaitReconciliation(client, jurisdiction, transactionBatchToken, options)
  return { ...validated, submitted }
}

/** Validates the batch, waits until it is Validated and current, and reads every failed result, grouped. */
export async function validate(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: WaitOptions = {},
): Promise<ValidateOutcome> {
  const validation = await validateBatch(client, jurisdiction, transactionBatchToken, options)
  const grouped = await groupedValidationResults(client, jurisdiction, transactionBatchToken, options)
  options.onProgress?.({ phase: 'results', blocking: grouped.blocking.length, nonBlocking: grouped.nonBlocking.length })
  return { transactionBatchToken, validation, ...grouped }
}

/** Every failed result of the batch's latest completed validation, grouped by validationGroupingId. */
export async function groupedValidationResults(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: RequestOptions = {},
): Promise<GroupedResults<ValidationResult>> {
  const results = await collect(
    client.validationResults(jurisdiction, transactionBatchToken, requestOptionsOf(options)),
  )
  return grouped(
    results,
    (r) => r.validationMessageLevel === 'Error',
    (r) => r.validationGroupingId,
  )
}

/** Waits until the submitted batch is reflected in reconciliation (its reconciledAt is set). */
export async function awaitReconciliation(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: WaitOptions = {},
): Promise<void> {
  await pollUntil(
    () => client.batch(jurisdiction, transactionBatchToken, requestOptionsOf(options)),
    (batch) => batch.reconciledAt !== null,
    {
      initialIntervalMs: 50,
      ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  )
}

/** Requests validation and waits until it is Validated and current (again if records changed meanwhile). */
async function validateBatch(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: WaitOptions,
): Promise<ValidationStatus> {
  const request = requestOptionsOf(options)
  for (let attempt = 0; ; attempt++) {
    await client.requestValidation(jurisdiction, transactionBatchToken, request)
    const status = await pollUntil(
      () => client.validationStatus(jurisdiction, transactionBatchToken, request),
      (s) => s.validationStatus === 'Validated',
      {
        ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
        ...(options.signal ? { signal: options.signal } : {}),
        onValue: (s) => options.onProgress?.({ phase: 'validate', status: s.validationStatus }),
      },
    )
    if (status.isCurrent || attempt >= 2) return status
  }
}

/** Results split by whether they block, then grouped by the concern they share, in the order first seen. */
export function grouped<Result>(
  results: Result[],
  blocks: (result: Result) => boolean,
  key: (result: Result) => string,
): GroupedResults<Result> {
  return {
    blocking: groupBy(results.filter(blocks), key),
    nonBlocking: groupBy(
      results.filter((r) => !blocks(r)),
      key,
    ),
  }
}

function groupBy<Result>(results: Result[], key: (result: Result) => string): ResultGroup<Result>[] {
  const groups = new Map<string, Result[]>()
  for (const result of results) {
    const id = key(result)
    groups.set(id, [...(groups.get(id) ?? []), result])
  }
  return [...groups].map(([groupingId, grouped]) => ({ groupingId, results: grouped }))
}
