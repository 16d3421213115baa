// How scripts/test.ts runs a job (scripts/test-job.ts): a test that timed out leaving a handle behind
// does not keep its process alive, and a job that stops making progress is ended, with the processes
// its tests started, saying what ended last; a CI run once ran out of its 90 minutes with nothing said.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { endWhenStalled, testJobArguments } from '../scripts/test-job.ts'
import { processAlive } from './support/child-service.ts'

const run = promisify(execFile)
// Without the runner's context variable, a child reports as a run of its own, not to this one.
const { NODE_TEST_CONTEXT: _, ...env } = process.env

async function inDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'vetrs-job-'))
  try {
    return await work(directory)
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}

describe('a test job as scripts/test.ts runs it, and ends it when it hangs', () => {
  it('a test that timed out leaving a handle open does not keep its process alive once the tests are over', () =>
    inDirectory(async (directory) => {
      const file = join(directory, 'leak.test.mjs')
      await writeFile(
        file,
        `import { it } from 'node:test'
it('leaves a timer and never ends', async () => { setInterval(() => {}, 1000); await new Promise(() => {}) })
it('passes', () => {})
`,
      )
      const progressFile = join(directory, 'progress')
      // The bound only says the process hung: without --test-force-exit it never ends at all.
      const outcome = await run(process.execPath, [...testJobArguments(progressFile, 1_000), file], {
        env,
        timeout: 60_000,
      }).then(
        () => ({ code: 0, killed: false }),
        (error: { code: number; killed: boolean }) => ({ code: error.code, killed: error.killed }),
      )
      assert.deepEqual(outcome, { code: 1, killed: false }, 'it ended by itself, failing')
      const progress = await readFile(progressFile, 'utf8')
      assert.match(progress, /^fail .*leaves a timer and never ends$/m)
      assert.match(progress, /^pass .*passes$/m)
    }))

  it('a job in which no test ends within the stall bound is ended with the processes it started, told what ended last', () =>
    inDirectory(async (directory) => {
      const pidFile = join(directory, 'grandchild.pid')
      const file = join(directory, 'hang.test.mjs')
      await writeFile(
        file,
        `import { it } from 'node:test'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
it('passes first', () => {})
it('starts a process and hangs', async () => {
  const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' })
  writeFileSync(${JSON.stringify(pidFile)}, String(sleeper.pid))
  await new Promise(() => {})
})
`,
      )
      const progressFile = join(directory, 'progress')
      const child = spawn(process.execPath, [...testJobArguments(progressFile, 3_600_000), file], {
        env,
        stdio: 'ignore',
        detached: true,
      })
      let told: string | undefined
      endWhenStalled(child, progressFile, 3_000, (lastEnded) => {
        told = lastEnded
      })
      const [code, signal] = await once(child, 'close')
      assert.equal(code, null)
      assert.equal(signal, 'SIGKILL')
      assert.match(String(told), /^pass .*passes first$/)
      const grandchild = Number(await readFile(pidFile, 'utf8'))
      for (let i = 0; i < 50 && processAlive(grandchild); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(processAlive(grandchild), false, 'the process the test started went with it')
    }))

  it('a job that keeps ending tests is left to run', () =>
    inDirectory(async (directory) => {
      const file = join(directory, 'slow.test.mjs')
      const tests = Array.from(
        { length: 6 },
        (_, i) => `it('takes a while ${i}', () => new Promise((r) => setTimeout(r, 700)))`,
      )
      await writeFile(file, `import { it } from 'node:test'\n${tests.join('\n')}\n`)
      const progressFile = join(directory, 'progress')
      const child = spawn(process.execPath, [...testJobArguments(progressFile), file], {
        env,
        stdio: 'ignore',
        detached: true,
      })
      let told: string | undefined
      const stop = endWhenStalled(child, progressFile, 2_000, (lastEnded) => {
        told = lastEnded
      })
      const [code] = await once(child, 'close')
      stop()
      assert.equal(code, 0, 'six tests of 0.7 s each, 4.2 s in all, against a stall bound of 2 s: not ended')
      assert.equal(told, undefined)
    }))
})
