// A node:test reporter for scripts/test.ts: one line per finished test (a suite only when it fails or is skipped), "pass",
// "fail" or "skip" and its name, written as each ends, so that the runner can show progress and name
// failures while a shard is still running (the shard's spec report is printed only when it ends).
import { relative } from 'node:path'
import type { TestEvent } from 'node:test/reporters'

export default async function* progress(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { data } = event
    const skipped = (data.skip !== undefined && data.skip !== false) || (data.todo !== undefined && data.todo !== false)
    // A suite is named only when it fails (a hook of its own failed) or is skipped whole (its tests
    // are then never reported); otherwise its tests are counted one by one.
    if (data.details.type === 'suite' && event.type === 'test:pass' && !skipped) continue
    const outcome = event.type === 'test:fail' ? 'fail' : skipped ? 'skip' : 'pass'
    const file = data.file === undefined ? '' : relative(process.cwd(), data.file)
    yield `${outcome} ${file} › ${data.name.replaceAll('\n', ' ')}\n`
    // What failed, on a line of its own: the run's summary repeats it at its end, where a CI log that
    // keeps only its tail still shows why (a shard's whole report is printed far above).
    if (outcome === 'fail') yield `why ${why('error' in data.details ? data.details.error : undefined)}\n`
  }
}

/** The failure's message on one line, at most 400 characters (node wraps a test's error in its cause). */
function why(error: unknown): string {
  const inner = (error as { cause?: unknown } | undefined)?.cause ?? error
  const message = inner instanceof Error ? `${inner.name}: ${inner.message}` : String(inner)
  const line = message.replace(/\s+/g, ' ').trim()
  return line.length > 400 ? `${line.slice(0, 399)}…` : line
}
