// The counts of a test job for scripts/test.ts's summary, read from the progress reporter's file
// (scripts/test-progress-reporter.ts): one line per finished test, "pass", "fail" or "skip" and its
// name, and one per suite skipped whole or failed. A suite skipped whole (describe with skip, as the
// PostgreSQL-only suites are on the embedded half) counts as one skip, as a skipped test does; node's
// own summary (`# skipped` of its TAP report) leaves it out.
//
// The progress file is the only report besides the spec report printed: a third reporter (the TAP
// report these counts were read from) made node's test runner attach eleven 'end' listeners to its
// event stream, one over the limit, and every test process printed a MaxListenersExceededWarning.

import { fileURLToPath } from 'node:url'

const PROGRESS_REPORTER = fileURLToPath(new URL('./test-progress-reporter.ts', import.meta.url))

/** The reporters of a test job: the spec report on stdout, the progress report in `progressFile`. */
export function reporterArguments(progressFile: string): string[] {
  return [
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${PROGRESS_REPORTER}`,
    `--test-reporter-destination=${progressFile}`,
  ]
}

export interface JobCounts {
  passed: number
  failed: number
  skipped: number
}

export function countsOfProgress(progress: string): JobCounts {
  const counts = { passed: 0, failed: 0, skipped: 0 }
  for (const line of progress.split('\n')) {
    if (line.startsWith('pass ')) counts.passed++
    else if (line.startsWith('fail ')) counts.failed++
    else if (line.startsWith('skip ')) counts.skipped++
  }
  return counts
}
