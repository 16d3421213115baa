// The test summary of scripts/test.ts (issue 30, CI output): its skip count includes suites skipped
// whole (the PostgreSQL half said "0 skipped" but skipped one), and its progress lines name them.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { countsOfTap } from '../scripts/test-counts.ts'

const run = promisify(execFile)
const PROGRESS_REPORTER = fileURLToPath(new URL('../scripts/test-progress-reporter.ts', import.meta.url))

/** A test file with one passing test, one skipped test and one suite skipped whole (two tests in it). */
const FIXTURE = `
import { describe, it } from 'node:test'
describe('runs', () => {
  it('passes', () => {})
  it('is skipped', { skip: 'not here' }, () => {})
})
describe('a suite skipped whole', { skip: 'another database' }, () => {
  it('one', () => {})
  it('two', () => {})
})
`

describe('the test summary counts skipped suites', () => {
  let directory: string
  let tap: string
  let progress: string
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'vetrs-counts-'))
    const file = join(directory, 'fixture.test.mjs')
    await writeFile(file, FIXTURE)
    const progressFile = join(directory, 'progress')
    // Without the runner's context variable, the child reports as a run of its own, not to this one.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env
    const { stdout } = await run(
      process.execPath,
      [
        '--test',
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${PROGRESS_REPORTER}`,
        `--test-reporter-destination=${progressFile}`,
        file,
      ],
      { env },
    )
    tap = stdout
    progress = await readFile(progressFile, 'utf8')
  })
  after(() => rm(directory, { recursive: true, force: true }))

  it('a skipped test and a suite skipped whole are two skips; node alone counts one', () => {
    assert.match(tap, /^# skipped 1$/m, "node's own count leaves the suite out")
    assert.deepEqual(countsOfTap(tap), { passed: 1, failed: 0, skipped: 2 })
  })

  it('the progress lines name the skipped suite', () => {
    const lines = progress.trim().split('\n')
    assert.deepEqual(lines.map((line) => line.split(' ')[0]).sort(), ['pass', 'skip', 'skip'])
    assert.ok(
      lines.some((line) => line.startsWith('skip') && line.endsWith('a suite skipped whole')),
      progress,
    )
  })
})
