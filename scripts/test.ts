// `npm test`: the whole suite on the embedded database (PGlite), then again on PostgreSQL when
// DATABASE_URL is given. CI always gives it; a CI run in which the PostgreSQL half did not run fails.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { globSync } from 'node:fs'

const files = globSync(['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/*/test/**/*.test.ts']).sort()
const extraArgs = process.argv.slice(2)
mkdirSync('.test-results', { recursive: true })

interface Half {
  name: string
  passed: number
  failed: number
  skipped: number
  exitCode: number
}

function runHalf(name: string, database: 'pglite' | 'postgres'): Half {
  console.log(`\n=== ${name} ===\n`)
  const tap = `.test-results/${database}.tap`
  const result = spawnSync(
    process.execPath,
    [
      '--test',
      '--test-concurrency=1',
      '--test-timeout=120000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...extraArgs,
      ...files,
    ],
    {
      stdio: 'inherit',
      // The embedded half must not see the PostgreSQL server at all, not even through a child process.
      env: { ...process.env, TEST_DATABASE: database, ...(database === 'pglite' ? { DATABASE_URL: '' } : {}) },
    },
  )
  const summary = readFileSync(tap, 'utf8')
  const count = (label: string) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0)
  return {
    name,
    passed: count('pass'),
    failed: count('fail') + count('cancelled'),
    skipped: count('skipped'),
    exitCode: result.status ?? 1,
  }
}

const halves: Half[] = [runHalf('Embedded database (PGlite)', 'pglite')]
const postgresUrl = process.env.DATABASE_URL
if (postgresUrl) halves.push(runHalf(`PostgreSQL (${new URL(postgresUrl).host})`, 'postgres'))

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
