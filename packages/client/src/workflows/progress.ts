// What a workflow reports while it works, so a caller can show a progress bar or log lines.

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

/** Polls `read` until `done` says so, waiting a little longer each time (at most maxIntervalMs), within timeoutMs. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: {
    initialIntervalMs?: number
    maxIntervalMs?: number
    timeoutMs?: number
    onValue?: (value: T) => void
  } = {},
): Promise<T> {
  const { initialIntervalMs = 250, maxIntervalMs = 5_000, timeoutMs = 30 * 60_000 } = options
  const deadline = Date.now() + timeoutMs
  let interval = initialIntervalMs
  for (;;) {
    const value = await read()
    options.onValue?.(value)
    if (done(value)) return value
    if (Date.now() + interval > deadline) throw new Error(`still not done after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, interval))
    interval = Math.min(maxIntervalMs, Math.round(interval * 1.5))
  }
}
