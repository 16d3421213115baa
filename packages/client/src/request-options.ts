// What every method and workflow accepts as its last argument, so no call can hang for ever and any
// call can be stopped.
import { UsageError } from './errors.ts'

export interface RequestOptions {
  /**
   * Stops the call: it rejects at once with `signal.reason` (an AbortError DOMException unless the
   * caller gave another reason), whatever it was doing (a request, a back-off, a poll), and is not
   * retried. `AbortSignal.timeout(ms)` bounds a whole workflow.
   */
  signal?: AbortSignal
  /**
   * Longest wait for one attempt of one request, from asking for a token to the last byte of the
   * answer (default: the client's `timeoutMs`, 60 s). An attempt that runs out is retried where a
   * lost connection would be (requests safe to repeat), and the call rejects with a TimeoutError
   * once the retries are spent. `Infinity` waits for ever.
   */
  timeoutMs?: number
  /**
   * Longest time for the whole call, every retry and back-off included (default: the client's
   * `deadlineMs`, none unless set). No retry starts that could not finish in time, and each attempt
   * is cut short where the deadline comes first; running out rejects with the last error, or a
   * TimeoutError. In a workflow it bounds each request, not the workflow (see `maxWaitMs`, `signal`).
   */
  deadlineMs?: number
}

/** The client's per-attempt timeout when none is given (ClientOptions.timeoutMs). */
export const DEFAULT_TIMEOUT_MS = 60_000

/** A promise that settles when `promise` does, or rejects with the signal's reason when it aborts first. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The timeout in force, checked: a positive number of milliseconds, or Infinity. */
export function timeoutOf(value: number | undefined, fallback: number): number {
  const ms = value ?? fallback
  if (!(ms > 0)) throw new UsageError(`timeoutMs must be a positive number of milliseconds or Infinity, not ${ms}`)
  return ms
}

/**
 * One attempt's signal: aborted by the caller's signal, or by the timer after `timeoutMs`.
 * `timedOut()` tells the two apart; `done()` stops the timer.
 */
export function attemptSignal(
  caller: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const timer = new AbortController()
  let fired = false
  // setTimeout takes at most 2^31-1 ms; anything longer (Infinity included) never fires in practice.
  const handle =
    timeoutMs < 2 ** 31
      ? setTimeout(() => {
          fired = true
          timer.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'))
        }, timeoutMs)
      : undefined
  return {
    signal: caller ? AbortSignal.any([caller, timer.signal]) : timer.signal,
    timedOut: () => fired && !caller?.aborted,
    done: () => clearTimeout(handle),
  }
}
