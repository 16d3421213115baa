// The output of scripts/test.ts (issue 30, CI output): its skip count includes suites skipped whole
// (the PostgreSQL half said "0 skipped" but skipped one), and a test process it starts prints no
// MaxListenersExceededWarning (every one printed one: its third reporter put an eleventh 'end'
// listener on node's test event stream).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { countsOfProgress, reporterArguments } from '../scripts/test-counts.ts'

const run = promisify(execFile)

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

describe('a test job as scripts/test.ts runs it', () => {
  let directory: string
  let progress: string
  let stderr: string
  let stdout: string
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'vetrs-counts-'))
    const file = join(directory, 'fixture.test.mjs')
    await writeFile(file, FIXTURE)
    const progressFile = join(directory, 'progress')
    // Without the runner's context variable, the child reports as a run of its own, not to this one.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env
    const output = await run(
      process.execPath,
      ['--test', '--test-isolation=none', ...reporterArguments(progressFile), file],
      { env },
    )
    stdout = output.stdout
    stderr = output.stderr
    progress = await readFile(progressFile, 'utf8')
  })
  after(() => rm(directory, { recursive: true, force: true }))

  it('a skipped test and a suite skipped whole are two skips (node itself counts one)', () => {
    assert.match(stdout, /skipped 1$/m, "node's own count leaves the suite out")
    assert.deepEqual(countsOfProgress(progress), { passed: 1, failed: 0, skipped: 2 })
    assert.ok(
      progress.split('\n').some((line) => line.startsWith('skip') && line.endsWith('a suite skipped whole')),
      progress,
    )
  })

  it('prints no MaxListenersExceededWarning', () => {
    assert.doesNotMatch(stderr, /MaxListenersExceededWarning/)
  })
})

describe("a failed test's reason, for the run's summary", () => {
  it('follows its fail line as one "why" line, and counts stay one failure', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'vetrs-why-'))
    try {
      const file = join(directory, 'failing.test.mjs')
      await writeFile(
        file,
        `import { it } from 'node:test'\nimport assert from 'node:assert/strict'\nit('compares', () => assert.equal(1, 2, 'the total is\\n wrong'))\n`,
      )
      const progressFile = join(directory, 'progress')
      const { NODE_TEST_CONTEXT: _, ...env } = process.env
      await assert.rejects(
        run(process.execPath, ['--test', '--test-isolation=none', ...reporterArguments(progressFile), file], { env }),
        'the test process exits non-zero',
      )
      const lines = (await readFile(progressFile, 'utf8')).split('\n')
      const failAt = lines.findIndex((line) => line.startsWith('fail ') && line.endsWith('compares'))
      assert.ok(failAt >= 0, lines.join('\n'))
      assert.match(lines[failAt + 1]!, /^why AssertionError: the total is wrong/)
      assert.deepEqual(countsOfProgress(lines.join('\n')), { passed: 0, failed: 1, skipped: 0 })
    } finally {
      await rm(directory, { recursive: true, force: true })
    }
  })
})
