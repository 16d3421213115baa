// Waiting in tests: never a fixed sleep for something to have happened, but the thing itself, polled
// at a short interval until it holds or a bounded deadline passes.
import assert from 'node:assert/strict'

export interface WaitOptions {
  /** How long to wait at most (default 30 s). */
  timeoutMs?: number
  /** Between two probes (default 20 ms). */
  intervalMs?: number
}

/**
 * Probes until the probe returns something other than undefined, and returns that. Past the deadline
 * it fails with `what` (a function is called then, so the message can show the last state seen).
 */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 20 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() >= deadline) assert.fail(`${typeof what === 'function' ? what() : what} (waited ${timeoutMs} ms)`)
    await pause(intervalMs)
  }
}

/**
 * A pause that is itself what a test is about (time passing for a token lifetime or a reconnection
 * back-off), never a stand-in for waiting on an outcome: use waitFor for that.
 */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
