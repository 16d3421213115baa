// What a workflow reports while it works, so a caller can show a progress bar or log lines, and the
// waiting it does (bounded concurrency, polling), stopped at once by the caller's AbortSignal.
import { WorkflowError } from '../errors.ts'
import { sleep, type RequestOptions } from '../request-options.ts'

export type ProgressEvent =
  | { phase: 'batch'; transactionBatchToken: string; jurisdiction: string }
  | { phase: 'upload'; done: number; total: number }
  | { phase: 'validate'; status: string }
  | { phase: 'results'; blocking: number; nonBlocking: number }
  | { phase: 'submit'; status: string }
  | { phase: 'check'; done: number; total: number }
  | { phase: 'assess'; status: string }
  | { phase: 'declare'; message: string }
  | { phase: 'sync'; dataset: string; pageNumber: number; numberOfPages: number; records: number }

export type OnProgress = (event: ProgressEvent) => void

/** Options of a workflow step that waits for the service (validation, assessment, reconciliation). */
export interface WaitOptions extends RequestOptions {
  /** Longest wait for the service to finish, polling with back-off (default 30 minutes); then a WorkflowError. */
  maxWaitMs?: number
  onProgress?: OnProgress
}

/** Only the options a request takes, so a workflow's own options are not passed on. */
export function requestOptionsOf(options: RequestOptions): RequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  }
}

/** Runs `work` over the items with at most `concurrency` in flight; fails with the first error. */
export async function eachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++
      try {
        await work(items[index]!, index)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker))
}

/** Polls `read` until `done` says so, waiting a little longer each time (at most maxIntervalMs), within maxWaitMs. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: {
    initialIntervalMs?: number
    maxIntervalMs?: number
    maxWaitMs?: number
    onValue?: (value: T) => void
    signal?: AbortSignal
  } = {},
): Promise<T> {
  const { initialIntervalMs = 250, maxIntervalMs = 5_000, maxWaitMs = 30 * 60_000 } = options
  const deadline = Date.now() + maxWaitMs
  let interval = initialIntervalMs
  for (;;) {
    const value = await read()
    options.onValue?.(value)
    if (done(value)) return value
    if (Date.now() + interval > deadline) throw new WorkflowError(`still not done after ${maxWaitMs} ms`, value)
    await sleep(interval, options.signal)
    interval = Math.min(maxIntervalMs, Math.round(interval * 1.5))
  }
}
