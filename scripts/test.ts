// `npm test`: the whole suite on the embedded database (PGlite), then again on PostgreSQL when
// DATABASE_URL is given. CI always gives it; a CI run in which the PostgreSQL half did not run fails.
//
// Test files run several at a time: each has databases of its own (test/support/test-service.ts), and
// every database starts as a copy of a template migrated once per run (test/support/database-templates.ts).
// The few files whose assertions are about elapsed time run afterwards, one at a time, on a machine
// the rest of the suite no longer loads. docs/decisions.md, "Tests: fast where they can be".
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { globSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { preparePgliteTemplate, preparePostgresTemplate, type Template } from '../test/support/database-templates.ts'

const files = globSync(['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/*/test/**/*.test.ts']).sort()
/** Files that measure elapsed time (an answer within so many ms): run alone, after the others. */
const ALONE = [
  'test/database-outage.test.ts',
  'test/rate-limit.test.ts',
  'packages/client/test/outage.test.ts',
  'packages/client/test/request-options.test.ts',
]
const together = files.filter((file) => !ALONE.includes(file))
const alone = files.filter((file) => ALONE.includes(file))
// Measured on 2 cores: 3 files at a time per half, both halves at once (docs/decisions.md).
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism() + 1)
const extraArgs = process.argv.slice(2)
mkdirSync('.test-results', { recursive: true })

interface Counts {
  passed: number
  failed: number
  skipped: number
  exitCode: number
}

interface Half extends Counts {
  name: string
  database: 'pglite' | 'postgres'
  env: Record<string, string>
}

/** Runs files with node's test runner, spec to stdout (or kept until `print`) and TAP to `tap`. */
function runFiles(
  half: Half,
  list: string[],
  options: { concurrency: number; tap: string; live: boolean },
): { done: Promise<Counts>; print: () => void } {
  const output: Buffer[] = []
  const child = spawn(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${options.concurrency}`,
      '--test-timeout=120000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${options.tap}`,
      ...extraArgs,
      ...list,
    ],
    { stdio: ['ignore', options.live ? 'inherit' : 'pipe', options.live ? 'inherit' : 'pipe'], env: half.env },
  )
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk))
  const done = new Promise<Counts>((resolve) => {
    child.on('close', (code) => {
      let summary = ''
      try {
        summary = readFileSync(options.tap, 'utf8')
      } catch {} // no report at all: the exit code says it failed
      const count = (label: string) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0)
      resolve({
        passed: count('pass'),
        failed: count('fail') + count('cancelled'),
        skipped: count('skipped'),
        exitCode: code ?? 1,
      })
    })
  })
  return { done, print: () => process.stdout.write(Buffer.concat(output)) }
}

function add(half: Half, counts: Counts): void {
  half.passed += counts.passed
  half.failed += counts.failed
  half.skipped += counts.skipped
  if (counts.exitCode !== 0) half.exitCode = counts.exitCode
}

const postgresUrl = process.env.DATABASE_URL
const templates: Template[] = []
const halves: Half[] = []
try {
  const [pglite, postgres] = await Promise.all([
    preparePgliteTemplate('.test-results/pglite-template.tar'),
    postgresUrl ? preparePostgresTemplate(postgresUrl) : undefined,
  ])
  templates.push(pglite, ...(postgres ? [postgres] : []))
  const base = { passed: 0, failed: 0, skipped: 0, exitCode: 0 }
  halves.push({
    ...base,
    name: 'Embedded database (PGlite)',
    database: 'pglite',
    // The embedded half must not see the PostgreSQL server at all, not even through a child process.
    env: { ...process.env, TEST_DATABASE: 'pglite', DATABASE_URL: '', ...pglite.env },
  })
  if (postgresUrl && postgres)
    halves.push({
      ...base,
      name: `PostgreSQL (${new URL(postgresUrl).host})`,
      database: 'postgres',
      env: { ...process.env, TEST_DATABASE: 'postgres', ...postgres.env },
    })

  // Both halves at once (TEST_HALVES=one-by-one: the second after the first); the first half's report
  // streams, the second's is printed once it is complete.
  const oneByOne = process.env.TEST_HALVES === 'one-by-one'
  const start = (half: Half, live: boolean) =>
    runFiles(half, together, { concurrency, tap: `.test-results/${half.database}.tap`, live })
  console.log(`\n=== ${halves[0]!.name} ===\n`)
  const runs = halves.map((half, i) => (i === 0 || !oneByOne ? start(half, i === 0) : undefined))
  for (const [i, half] of halves.entries()) {
    if (i > 0) console.log(`\n=== ${half.name} ===\n`)
    const run = runs[i] ?? start(half, true)
    add(half, await run.done)
    if (i > 0 && runs[i]) run.print()
  }
  for (const half of halves) {
    if (alone.length === 0) break
    console.log(`\n=== ${half.name}: files that time answers, one at a time ===\n`)
    const run = runFiles(half, alone, { concurrency: 1, tap: `.test-results/${half.database}-alone.tap`, live: true })
    add(half, await run.done)
  }
} finally {
  await Promise.all(templates.map((template) => template.remove()))
}

console.log('\n=== Summary ===')
for (const half of halves)
  console.log(`${half.name}: ${half.passed} passed, ${half.failed} failed, ${half.skipped} skipped`)
let failed = halves.some((half) => half.exitCode !== 0 || half.failed > 0)
if (!postgresUrl) {
  console.log('\nThe PostgreSQL half was NOT run: no DATABASE_URL was given.')
  console.log('Run it with a PostgreSQL you may create databases on, e.g.:')
  console.log('  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm test')
  if (process.env.CI) {
    console.log('CI must run both halves: failing.')
    failed = true
  }
}
const passed = halves.reduce((sum, half) => sum + half.passed, 0)
const failures = halves.reduce((sum, half) => sum + half.failed, 0)
console.log(`${passed} passed, ${failures} failed`)
process.exit(failed ? 1 : 0)
