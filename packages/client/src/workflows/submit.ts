// Standard workflows 1 and 2 as one call: a batch (new, or a NotSubmitted one given back), every
// record uploaded with bounded concurrency in any order, validation requested and polled with
// back-off, failed results read to the last page and grouped by validationGroupingId, and the
// batch submitted only when nothing blocks.
import type { Jurisdiction, SubmitResult, ValidationResult, ValidationStatus, VetrsClient } from '../client.ts'
import type { ResourceRecord } from '../resources.ts'
import { collect } from '../paging.ts'
import { eachBounded, pollUntil, type OnProgress } from './progress.ts'

export interface ResultGroup<Result> {
  /** One rule execution: every result naming the same concern. */
  groupingId: string
  results: Result[]
}

export interface SubmitOptions {
  jurisdiction: Jurisdiction
  /** Re-use this NotSubmitted batch (after fixing records) instead of creating one. */
  transactionBatchToken?: string
  /** Uploads in flight at once (default 4). */
  concurrency?: number
  /** Validate only: read the results but do not submit even when nothing blocks. */
  dryRun?: boolean
  /** Longest wait for validation (default 30 minutes). */
  timeoutMs?: number
  /**
   * Return only once reconciliation reflects the submission (the batch's reconciledAt is set; the
   * service indexes a submission moments after submit answers). Default true.
   */
  awaitReconciliation?: boolean
  onProgress?: OnProgress
}

export interface SubmitOutcome {
  transactionBatchToken: string
  validation: ValidationStatus
  blocking: ResultGroup<ValidationResult>[]
  nonBlocking: ResultGroup<ValidationResult>[]
  /** The submit answer; null when blocking failures (or dryRun) kept the batch NotSubmitted. */
  submitted: SubmitResult | null
}

export async function submitRecords(
  client: VetrsClient,
  records: readonly ResourceRecord[],
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  const { jurisdiction, onProgress } = options
  const transactionBatchToken =
    options.transactionBatchToken ?? (await client.createBatch(jurisdiction)).transactionBatchToken
  onProgress?.({ phase: 'batch', transactionBatchToken, jurisdiction })
  let done = 0
  onProgress?.({ phase: 'upload', done, total: records.length })
  await eachBounded(records, options.concurrency ?? 4, async (record) => {
    await client.upload(jurisdiction, transactionBatchToken, record)
    onProgress?.({ phase: 'upload', done: ++done, total: records.length })
  })
  const validation = await validateBatch(client, jurisdiction, transactionBatchToken, options)
  const results = await collect(client.validationResults(jurisdiction, transactionBatchToken))
  const blocking = groupBy(
    results.filter((r) => r.validationMessageLevel === 'Error'),
    (r) => r.validationGroupingId,
  )
  const nonBlocking = groupBy(
    results.filter((r) => r.validationMessageLevel !== 'Error'),
    (r) => r.validationGroupingId,
  )
  onProgress?.({ phase: 'results', blocking: blocking.length, nonBlocking: nonBlocking.length })
  if (validation.hasBlockingValidationFailures || options.dryRun)
    return { transactionBatchToken, validation, blocking, nonBlocking, submitted: null }
  const submitted = await client.submitBatch(jurisdiction, transactionBatchToken)
  onProgress?.({ phase: 'submit', status: submitted.status })
  if (options.awaitReconciliation ?? true)
    await awaitReconciliation(client, jurisdiction, transactionBatchToken, options)
  return { transactionBatchToken, validation, blocking, nonBlocking, submitted }
}

/** Waits until the submitted batch is reflected in reconciliation (its reconciledAt is set). */
export async function awaitReconciliation(
  client: VetrsClient,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  await pollUntil(
    () => client.batch(jurisdiction, transactionBatchToken),
    (batch) => batch.reconciledAt !== null,
    {
      initialIntervalMs: 50,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    },
  )
}

/** Requests validation and waits until it is Validated and current (again if records changed meanwhile). */
export async function validateBatch(
  client: VetrsClient,
  jurisdiction: Jurisdiction,
  transactionBatchToken: string,
  options: { timeoutMs?: number; onProgress?: OnProgress } = {},
): Promise<ValidationStatus> {
  for (let attempt = 0; ; attempt++) {
    await client.requestValidation(jurisdiction, transactionBatchToken)
    const status = await pollUntil(
      () => client.validationStatus(jurisdiction, transactionBatchToken),
      (s) => s.validationStatus === 'Validated',
      {
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        onValue: (s) => options.onProgress?.({ phase: 'validate', status: s.validationStatus }),
      },
    )
    if (status.isCurrent || attempt >= 2) return status
  }
}

export function groupBy<Result>(results: Result[], key: (result: Result) => string): ResultGroup<Result>[] {
  const groups = new Map<string, Result[]>()
  for (const result of results) {
    const id = key(result)
    groups.set(id, [...(groups.get(id) ?? []), result])
  }
  return [...groups].map(([groupingId, grouped]) => ({ groupingId, results: grouped }))
}
