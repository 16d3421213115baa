// `npm test`: the whole suite on the embedded database (PGlite), and again on PostgreSQL when
// DATABASE_URL is given. CI always gives it; a CI run in which the PostgreSQL half did not run fails.
//
// Each half's files are split into shards of about equal cost, and each shard runs its files one after
// another in one process (node --test --test-isolation=none): a file then costs what its tests cost,
// not a Node.js start, the modules loaded and compiled again and an embedded database unpacked anew.
// Files can share a process, and shards run side by side, because each file has databases of its own
// (test/support/test-service.ts), each a copy of a migrated template (PGlite: cached by a hash of the
// migrations, made once; PostgreSQL: made once per run,
// test/support/database-templates.ts). The few files whose assertions are about elapsed time run
// afterwards, each in a process of its own, on a machine the rest of the suite no longer loads.
// docs/decisions.md, "Tests: fast where they can be".
import { type ChildProcess, spawn } from 'node:child_process'
import { globSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { cachedPgliteRunTemplate, preparePostgresTemplate, type Template } from '../test/support/database-templates.ts'
import { countsOfProgress } from './test-counts.ts'
import { endWhenStalled, killGroup, testJobArguments } from './test-job.ts'

const files = globSync(['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/*/test/**/*.test.ts']).sort()
/**
 * Files that measure elapsed time (an answer within so many ms), and those that start PostgreSQL
 * servers of their own with start deadlines (initdb and a base backup are CPU-bound; starved by six
 * shards they could miss them): the cluster's check (seven processes, within a bounded time) and the
 * read replica's test (a primary and a streaming replica, about 6 s), and the chaos run's short form
 * (the cluster under load and faults, about two minutes). Run alone, after the others.
 */
const ALONE = [
  'test/database-outage.test.ts',
  'test/rate-limit.test.ts',
  'packages/client/test/outage.test.ts',
  'packages/client/test/request-options.test.ts',
  'test/cluster.test.ts',
  'test/read-replica.test.ts',
  'test/chaos.test.ts',
]
/**
 * Seconds of CPU a file took on the embedded database (2-core machine, issue 18's measurements), for
 * shards of about equal cost. A file not listed counts as 5 s; the balance is all this changes.
 */
const COST: Record<string, number> = {
  'test/startup.test.ts': 38,
  'test/crash-recovery.test.ts': 40,
  'packages/cli/test/cli.test.ts': 19,
  'test/fuzz.test.ts': 25,
  'test/security-defaults.test.ts': 20,
  'test/assessment-rules.test.ts': 18,
  'test/assessments.test.ts': 16,
  'test/operations.test.ts': 15,
  'test/business-rules.test.ts': 14,
  'test/resources.test.ts': 14,
  'test/declarations.test.ts': 12,
  'packages/client/test/resilience.test.ts': 12,
  'test/submit.test.ts': 11,
  'test/reconciliation.test.ts': 11,
  'packages/client/test/workflows.test.ts': 11,
  'test/held-records.test.ts': 11,
  'test/nat-bridge.test.ts': 10,
  'test/nat-import.test.ts': 11,
  'test/console.test.ts': 20, // two services and a headless Chromium; estimated, not yet measured under npm test
  'test/console-operator.test.ts': 15, // a service and a headless Chromium; estimated, not yet measured under npm test
  'test/console-rto.test.ts': 15, // a service and a headless Chromium; estimated, not yet measured under npm test
}
const together = files.filter((file) => !ALONE.includes(file))
const alone = files.filter((file) => ALONE.includes(file))
// Measured on 2 cores: three shards per half, all six at once (docs/decisions.md): with two, the
// shards' waits (child processes starting, runs polled) left the cores idle.
const shardsPerHalf = Number(process.env.TEST_SHARDS) || availableParallelism() + 1
const extraArgs = process.argv.slice(2)
const results = '.test-results'
rmSync(results, { recursive: true, force: true })
mkdirSync(results, { recursive: true })

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

interface Job {
  half: Half
  files: string[]
  name: string
}

/** Jobs that failed, named again in the summary: their reports may be far up the output. */
const failedJobs: string[] = []

/**
 * Minutes without a test ending after which a job is taken as hung and ended (TEST_STALL_MINUTES):
 * every test and hook fails after two minutes (the few that set their own bound, nine at most), so ten
 * without one ending is a process that will not end.
 */
const STALL_MINUTES = Number(process.env.TEST_STALL_MINUTES) || 10

/** The jobs' processes now running: an interrupted run (Ctrl-C, CI's cancel) ends them with it. */
const running = new Set<ChildProcess>()
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const child of running) killGroup(child, 'SIGTERM')
    process.exit(130)
  })

/** Seconds between two progress lines while jobs run (a shard's own report comes only when it ends). */
const PROGRESS_SECONDS = 30

/**
 * Progress while jobs run: every PROGRESS_SECONDS, the tests finished so far in every job (from each
 * job's progress file, written test by test), a failure named as soon as a tick sees it, and which
 * jobs are still running. Without it a CI log stays silent for minutes, and a failure early in a
 * long shard is seen only when the shard ends.
 */
class Progress {
  /** Each job's progress file, and the job's name. */
  readonly #files = new Map<string, string>()
  readonly #running = new Set<string>()
  readonly #started = performance.now()
  readonly #timer: NodeJS.Timeout
  readonly #failuresShown = new Set<string>()
  #last = ''

  constructor() {
    this.#timer = setInterval(() => this.#tick(), PROGRESS_SECONDS * 1000)
  }

  started(job: string, file: string): void {
    this.#files.set(file, job)
    this.#running.add(job)
  }

  ended(job: string): void {
    this.#running.delete(job)
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  /** Every failed test so far, with the job it ran in and why it failed (the reporter's "why" line). */
  failures(): string[] {
    const found: string[] = []
    for (const [file, job] of this.#files) {
      let lines: string[] = []
      try {
        lines = readFileSync(file, 'utf8').split('\n')
      } catch {} // never written: the job's exit code says it failed
      lines.forEach((line, i) => {
        if (!line.startsWith('fail ')) return
        const why = lines[i + 1]?.startsWith('why ') ? `\n     ${lines[i + 1]!.slice(4)}` : ''
        found.push(`${job}: ${line.slice(5)}${why}`)
      })
    }
    return found
  }

  #tick(): void {
    const counts = { pass: 0, fail: 0, skip: 0 }
    const failures: string[] = []
    for (const [file, job] of this.#files) {
      let text = ''
      try {
        text = readFileSync(file, 'utf8')
      } catch {} // not written yet
      for (const line of text.split('\n')) {
        const outcome = line.slice(0, 4) as keyof typeof counts
        if (!(outcome in counts)) continue
        counts[outcome]++
        if (outcome === 'fail') failures.push(`failed in ${job}: ${line.slice(5)}`)
      }
    }
    for (const failure of failures) {
      if (this.#failuresShown.has(failure)) continue
      this.#failuresShown.add(failure)
      process.stdout.write(`!! ${failure}\n`)
    }
    const minutes = ((performance.now() - this.#started) / 60_000).toFixed(1)
    const line = `${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped so far; running: ${[...this.#running].join(', ') || 'none'}`
    if (line !== this.#last) process.stdout.write(`.. ${minutes} min: ${line}\n`)
    this.#last = line
  }
}
const progress = new Progress()

/**
 * Runs a job's files with node's test runner, in one process: its spec report is kept and printed
 * whole when the job ends (so reports of jobs running side by side do not interleave), its progress
 * report (one line per test) gives the counts (scripts/test-counts.ts). Two reporters, not three: a
 * third made the runner warn (MaxListenersExceededWarning) in every test process.
 */
function runJob({ half, files, name }: Job): Promise<Counts> {
  const progressFile = `${results}/${half.database}--${name.replaceAll('/', '_')}.progress`
  const label = `${name} (${half.database === 'pglite' ? 'PGlite' : 'PostgreSQL'})`
  progress.started(label, progressFile)
  const started = performance.now()
  const output: Buffer[] = []
  // Detached: a process group of its own, which a stalled job is ended with (its services and browsers too).
  const child = spawn(process.execPath, [...testJobArguments(progressFile), ...extraArgs, ...files], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: half.env,
    detached: true,
  })
  running.add(child)
  let stalled = ''
  const stopWatching = endWhenStalled(child, progressFile, STALL_MINUTES * 60_000, (lastEnded) => {
    stalled = `\n!! ${label}: no test ended for ${STALL_MINUTES} minutes, after ${lastEnded}: ended (killed).\n`
    process.stdout.write(stalled)
  })
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
  return new Promise((resolve) => {
    child.on('close', (code) => {
      stopWatching()
      running.delete(child)
      progress.ended(label)
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      process.stdout.write(
        `\n── ${name} (${half.name}, ${seconds} s): ${files.join(' ')}\n${Buffer.concat(output)}${stalled}`,
      )
      let report = ''
      try {
        report = readFileSync(progressFile, 'utf8')
      } catch {} // no report at all: the exit code says it failed
      resolve({ ...countsOfProgress(report), exitCode: code ?? 1 }) // skipped suites counted too
    })
  })
}

/** Runs the jobs, at most `limit` at a time, in the order given. */
async function runPool(jobs: Job[], limit: number): Promise<void> {
  const queue = [...jobs]
  const next = async (): Promise<void> => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const counts = await runJob(job)
      if (counts.exitCode !== 0 || counts.failed > 0) failedJobs.push(`${job.name} (${job.half.name})`)
      add(job.half, counts)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, next))
}

function add(half: Half, counts: Counts): void {
  half.passed += counts.passed
  half.failed += counts.failed
  half.skipped += counts.skipped
  if (counts.exitCode !== 0) half.exitCode = counts.exitCode
}

/** A half's files in `count` shards of about equal cost: each file to the cheapest shard so far. */
function shardsOf(half: Half, list: string[], count: number): Job[] {
  const cost = (file: string) => COST[file] ?? 5
  const shards = Array.from({ length: Math.min(count, list.length) }, (_, i) => ({
    half,
    files: [] as string[],
    name: `shard ${i + 1}`,
    cost: 0,
  }))
  for (const file of [...list].sort((a, b) => cost(b) - cost(a))) {
    const cheapest = shards.reduce((a, b) => (b.cost < a.cost ? b : a))
    cheapest.files.push(file)
    cheapest.cost += cost(file)
  }
  return shards
}

const postgresUrl = process.env.DATABASE_URL
const templates: Template[] = []
const halves: Half[] = []
try {
  const [pglite, postgres] = await Promise.all([
    cachedPgliteRunTemplate(),
    postgresUrl ? preparePostgresTemplate(postgresUrl) : undefined,
  ])
  templates.push(pglite, ...(postgres ? [postgres] : []))
  const base = { passed: 0, failed: 0, skipped: 0, exitCode: 0 }
  // Compiled code is cached across the run's many processes (test files, and the services and CLIs
  // they start as child processes): each would otherwise compile the same modules again.
  const shared = { NODE_COMPILE_CACHE: `${results}/compile-cache` }
  halves.push({
    ...base,
    name: 'Embedded database (PGlite)',
    database: 'pglite',
    // The embedded half must not see the PostgreSQL server at all, not even through a child process.
    env: { ...process.env, ...shared, TEST_DATABASE: 'pglite', DATABASE_URL: '', ...pglite.env },
  })
  if (postgresUrl && postgres)
    halves.push({
      ...base,
      name: `PostgreSQL (${new URL(postgresUrl).host})`,
      database: 'postgres',
      env: { ...process.env, ...shared, TEST_DATABASE: 'postgres', ...postgres.env },
    })

  // TEST_HALVES=one-by-one: the second half after the first, instead of both at once.
  if (process.env.TEST_HALVES === 'one-by-one')
    for (const half of halves) await runPool(shardsOf(half, together, shardsPerHalf), shardsPerHalf)
  else
    await runPool(
      halves.flatMap((half) => shardsOf(half, together, shardsPerHalf)),
      Infinity,
    )
  if (alone.length > 0) {
    console.log('\n=== Files that time answers: each in a process of its own, one at a time per half ===')
    await Promise.all(
      halves.map((half) =>
        runPool(
          alone.map((file) => ({ half, files: [file], name: file })),
          1,
        ),
      ),
    )
  }
} finally {
  progress.stop()
  await Promise.all(templates.map((template) => template.remove()))
}

console.log('\n=== Summary ===')
for (const half of halves)
  console.log(`${half.name}: ${half.passed} passed, ${half.failed} failed, ${half.skipped} skipped`)
for (const job of failedJobs) console.log(`failed: ${job}`)
const failedTests = progress.failures()
if (failedTests.length > 0) {
  console.log('\nFailed tests and why (their whole reports are above, in their shards):')
  for (const failure of failedTests.slice(0, 30)) console.log(`  ✖ ${failure}`)
  if (failedTests.length > 30) console.log(`  … and ${failedTests.length - 30} more`)
}
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
