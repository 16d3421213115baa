// How scripts/test.ts runs a job (a shard, or a file that runs alone), and how it ends one that has
// stopped making progress, so that a hung test process fails the run with a reason instead of keeping
// CI waiting until its own limit kills it with nothing said.
import type { ChildProcess } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { reporterArguments } from './test-counts.ts'

/** A test (and a hook) fails after this long. */
export const TEST_TIMEOUT_MS = 120_000

/** node's arguments for a job whose progress report goes to `progressFile` (the files follow them). */
export function testJobArguments(progressFile: string, testTimeoutMs = TEST_TIMEOUT_MS): string[] {
  return [
    '--test',
    '--test-isolation=none',
    `--test-timeout=${testTimeoutMs}`,
    // A test that timed out may leave a handle behind (its service, its browser, a timer): without this
    // the process never exits once its tests are over and the run waits for it (a CI run once ran out
    // of its 90 minutes after tests had timed out).
    '--test-force-exit',
    ...reporterArguments(progressFile),
  ]
}

/**
 * Watches a job's progress file: when it has not grown for `stallMs` (no test ended in that time,
 * when every test and hook is bounded by TEST_TIMEOUT_MS), the job's process group is killed and
 * `onStall` is told what ended last. The child must have been spawned `detached` (its own group, so
 * that the services and browsers its tests started go with it). Returns a function that stops watching.
 */
export function endWhenStalled(
  child: ChildProcess,
  progressFile: string,
  stallMs: number,
  onStall: (lastEnded: string) => void,
): () => void {
  let size = -1
  let since = Date.now()
  const timer = setInterval(
    () => {
      const now = sizeOf(progressFile)
      if (now !== size) {
        size = now
        since = Date.now()
        return
      }
      if (Date.now() - since < stallMs) return
      clearInterval(timer)
      onStall(lastLineOf(progressFile))
      killGroup(child, 'SIGKILL')
    },
    Math.max(100, Math.min(stallMs / 4, 15_000)),
  )
  timer.unref()
  return () => clearInterval(timer)
}

/** Signals a detached child's whole process group (the child itself when it has none). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    child.kill(signal) // no group (not detached), or it has just ended
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0 // not written yet
  }
}

function lastLineOf(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    return lines.at(-1) || 'nothing (no test had ended)'
  } catch {
    return 'nothing (no test had ended)'
  }
}
