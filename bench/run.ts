// `npm run bench`: throughput and p99 latency of (A) the real service's authenticated, validated,
// persisted POST against (B) a bare Fastify app doing the same validation and insert, and of (U) the
// service's Student upload into a transaction batch against the same (B) at 50 connections, on
// embedded PGlite (always) and on PostgreSQL (when DATABASE_URL is set). See bench/README.md.
import { execFileSync, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { cpus } from 'node:os'
import type { LoadRequest, LoadResult } from './load.ts'
import { loadInChild } from './load-child.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { table } from './table.ts'
import { UID_PLACEHOLDER, sampleBody } from './record.ts'
import { sampleStudentBody } from './student.ts'
import { startBare, startService, startUpload, type Target } from './targets.ts'
import { median, positiveInteger } from './settings.ts'

// ---- settings -------------------------------------------------------------------------------------

const settings = {
  runs: positiveInteger('BENCH_RUNS', 3, 50),
  seconds: positiveInteger('BENCH_SECONDS', 5, 600),
  warmupSeconds: positiveInteger('BENCH_WARMUP_SECONDS', 2, 60),
  connections: positiveInteger('BENCH_CONNECTIONS', 10, 1000),
  uploadConnections: positiveInteger('BENCH_UPLOAD_CONNECTIONS', 50, 1000),
}
const adminUrl = process.env.DATABASE_URL || undefined

/** Issue 3: the Student upload must reach at least this share of the bare route's throughput. */
const UPLOAD_TARGET_RATIO = 0.6

// Everything is bounded: if the whole benchmark overruns its budget, give up rather than hang.
// Per database: two comparisons of two targets, each a warm-up and the runs (with some seconds per
// run for starting the load generator, truncating and counting), plus starting and stopping.
const databases = adminUrl ? 2 : 1
const comparisonSeconds = 2 * (settings.warmupSeconds + settings.runs * (settings.seconds + 10))
const budgetSeconds = databases * (2 * comparisonSeconds + 150)
const watchdog = setTimeout(() => {
  console.error(`bench: gave up after ${budgetSeconds} s (over budget)`)
  process.exit(2)
}, budgetSeconds * 1000)
watchdog.unref()

// Ctrl-C stops the running load and lets the cleanup below close servers and drop the database.
let interrupted = false
let currentLoad: ChildProcess | undefined
process.on('SIGINT', () => {
  if (interrupted) process.exit(130)
  interrupted = true
  console.error('\nbench: interrupted, cleaning up (Ctrl-C again to quit at once)')
  currentLoad?.kill('SIGTERM')
})

// ---- load -----------------------------------------------------------------------------------------

function load(target: Target, connections: number, seconds: number): Promise<LoadResult> {
  if (interrupted) return Promise.reject(new Error('interrupted'))
  const [bodyBefore, bodyAfter] = target.body.split(UID_PLACEHOLDER) as [string, string]
  const request: LoadRequest = {
    url: `${target.url}${target.path}`,
    headers: target.headers,
    bodyBefore,
    bodyAfter,
    connections,
    seconds,
  }
  return loadInChild(request, (child) => {
    currentLoad = child
  })
}

// ---- checks ---------------------------------------------------------------------------------------

/**
 * Before measuring: the route writes (201), validation is live (400), for A and U auth is live (401),
 * and for U a second upload of the same student replaces it (200), so fresh UIDs mean new records.
 */
async function check(target: Target): Promise<void> {
  const answers = new Map<number, string>() // the last body seen per status, for the error message
  const post = async (payload: string, headers: Record<string, string>) => {
    const response = await fetch(`${target.url}${target.path}`, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', ...headers },
      signal: AbortSignal.timeout(10_000),
    })
    const text = await response.text()
    answers.set(response.status, text)
    return response.status
  }
  const valid = target.body.replace(UID_PLACEHOLDER, randomUUID())
  const expectations: [string, number, number][] = [
    ['valid record', await post(valid, target.headers), 201],
    ['invalid record', await post(target.invalid(valid), target.headers), 400],
  ]
  if (target.name !== 'B') expectations.push(['no bearer token', await post(valid, {}), 401])
  if (target.name === 'U') expectations.push(['the same student again', await post(valid, target.headers), 200])
  const wrong = expectations.filter(([, got, expected]) => got !== expected)
  if (wrong.length > 0) {
    throw new Error(
      `${target.name} does not behave: ${wrong.map(([what, got, expected]) => `${what} gave ${got}, expected ${expected}`).join('; ')}` +
        ` (last ${wrong[0]![1]} answer: ${answers.get(wrong[0]![1])?.slice(0, 1000)})`,
    )
  }
}

// ---- measurement ----------------------------------------------------------------------------------

interface Run extends LoadResult {
  rows: number
}

interface Figures {
  requestsPerSecond: number
  p99Ms: number
  runs: Run[]
}

interface Ratio {
  throughput: number
  p99: number
}

interface DatabaseFigures {
  database: 'pglite' | 'postgres'
  A: Figures
  B: Figures
  ratio: Ratio
  /** The Student upload (U) against the same bare route (B), both at settings.uploadConnections. */
  upload: { U: Figures; B: Figures; ratio: Ratio; pass: boolean }
  problems: string[]
}

function figures(runs: Run[]): Figures {
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    runs,
  }
}

/**
 * One comparison: each target warmed up, then settings.runs runs each, the two alternating, every
 * run starting from an emptied table. `tag` marks the progress lines and problems of a comparison.
 */
async function compare(
  database: string,
  pair: [Target, Target],
  connections: number,
  tag: string,
  problems: string[],
): Promise<[Figures, Figures]> {
  const label = (target: Target) => `${target.name}${tag}`
  for (const target of pair) {
    process.stdout.write(`  ${database} ${label(target)}: warm-up ${settings.warmupSeconds} s\n`)
    await load(target, connections, settings.warmupSeconds)
  }
  const runs = new Map<Target, Run[]>(pair.map((target) => [target, []]))
  for (let i = 0; i < settings.runs; i++) {
    // Alternate the order so neither target always runs first (or on a warmer machine).
    for (const target of i % 2 === 0 ? pair : [pair[1], pair[0]]) {
      await target.reset()
      const result = await load(target, connections, settings.seconds)
      const rows = await target.count()
      const run: Run = { ...result, rows }
      runs.get(target)!.push(run)
      process.stdout.write(
        `  ${database} ${label(target)}: run ${i + 1}/${settings.runs}: ${fixed(run.requestsPerSecond, 0)} req/s, p99 ${fixed(run.p99Ms, 2)} ms\n`,
      )
      if (run.non2xx > 0 || run.errors > 0) {
        problems.push(
          `${label(target)} run ${i + 1}: ${run.non2xx} non-2xx, ${run.errors} errors (${run.timeouts} timeouts), status codes ${JSON.stringify(run.statusCodes)}`,
        )
      }
      if (rows < run.ok)
        problems.push(`${label(target)} run ${i + 1}: ${run.ok} successful responses but only ${rows} rows written`)
    }
  }
  return [figures(runs.get(pair[0])!), figures(runs.get(pair[1])!)]
}

const ratioOf = (x: Figures, y: Figures): Ratio => ({
  throughput: x.requestsPerSecond / y.requestsPerSecond,
  p99: x.p99Ms / y.p99Ms,
})

async function measure(database: DatabaseFigures['database'], env: Record<string, string>): Promise<DatabaseFigures> {
  const servers: Target[] = []
  try {
    servers.push(await startService(env))
    servers.push(await startBare(env))
    const [a, b] = servers as [Target, Target]
    const u = await startUpload(a) // the same server as A: closed with it
    for (const target of [a, b, u]) await check(target)

    const problems: string[] = []
    const [A, B] = await compare(database, [a, b], settings.connections, '', problems)
    const [uploadU, uploadB] = await compare(
      database,
      [u, b],
      settings.uploadConnections,
      `@${settings.uploadConnections}`,
      problems,
    )
    const uploadRatio = ratioOf(uploadU, uploadB)
    return {
      database,
      A,
      B,
      ratio: ratioOf(A, B),
      upload: { U: uploadU, B: uploadB, ratio: uploadRatio, pass: uploadRatio.throughput >= UPLOAD_TARGET_RATIO },
      problems,
    }
  } finally {
    for (const server of servers.reverse()) await server.close()
  }
}

// ---- report ---------------------------------------------------------------------------------------

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a'
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== ''
    return dirty ? `${head}-dirty` : head
  } catch {
    return 'unknown'
  }
}

async function main(): Promise<number> {
  const meta = {
    date: new Date().toISOString(),
    commit: commit(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} x${cpus().length}`,
    // The UUID that replaces the placeholder has the same length.
    bodyBytes: Buffer.byteLength(sampleBody()),
    studentBodyBytes: Buffer.byteLength(sampleStudentBody()),
    ...settings,
    uploadTargetRatio: UPLOAD_TARGET_RATIO,
  }
  console.log(`bench: ${meta.date}, commit ${meta.commit}, Node ${meta.node}, ${meta.cpu}`)
  console.log(
    `bench: ${settings.runs} run(s) of ${settings.seconds} s after ${settings.warmupSeconds} s warm-up, ${settings.connections} connections, body ${meta.bodyBytes} bytes`,
  )
  console.log(
    `bench: Student upload (U) vs bare route (B) at ${settings.uploadConnections} connections, Student body ${meta.studentBodyBytes} bytes`,
  )
  if (!adminUrl) console.log('bench: no DATABASE_URL, PostgreSQL is skipped')

  const results: DatabaseFigures[] = []
  results.push(await measure('pglite', { DATA_DIR: 'memory://' }))
  if (adminUrl) results.push(await withFreshPostgres(adminUrl, (url) => measure('postgres', { DATABASE_URL: url })))

  const rows = [['database', 'target', 'req/s', 'p99 ms']]
  for (const result of results) {
    rows.push([result.database, 'A full platform', fixed(result.A.requestsPerSecond, 0), fixed(result.A.p99Ms, 2)])
    rows.push([result.database, 'B bare Fastify', fixed(result.B.requestsPerSecond, 0), fixed(result.B.p99Ms, 2)])
    rows.push([result.database, 'A/B', fixed(result.ratio.throughput, 3), fixed(result.ratio.p99, 3)])
  }
  console.log(`\nMedians of ${settings.runs} run(s); A/B is the throughput ratio (req/s) and the p99 ratio.\n`)
  console.log(table(rows, 2))

  const target = `U/B >= ${UPLOAD_TARGET_RATIO.toFixed(2)}`
  const uploadRows = [['database', 'target', 'req/s', 'p99 ms', target]]
  for (const result of results) {
    const { U, B, ratio, pass } = result.upload
    uploadRows.push([result.database, 'U Student upload', fixed(U.requestsPerSecond, 0), fixed(U.p99Ms, 2), ''])
    uploadRows.push([result.database, 'B bare Fastify', fixed(B.requestsPerSecond, 0), fixed(B.p99Ms, 2), ''])
    uploadRows.push([result.database, 'U/B', fixed(ratio.throughput, 3), fixed(ratio.p99, 3), pass ? 'PASS' : 'FAIL'])
  }
  console.log(
    `\nStudent upload (U) vs bare route (B) at ${settings.uploadConnections} connections: medians of ${settings.runs} run(s);`,
  )
  console.log(
    `U/B is the throughput ratio and the p99 ratio; the target is U at least ${UPLOAD_TARGET_RATIO * 100} % of B's req/s.\n`,
  )
  console.log(table(uploadRows, 2))
  const problems = results.flatMap((result) => result.problems.map((problem) => `${result.database}: ${problem}`))
  if (problems.length > 0)
    console.log(`\nProblems (figures are not trustworthy):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  console.log(
    `\n${JSON.stringify({
      ...meta,
      results: results.map((result) => ({
        database: result.database,
        A: { requestsPerSecond: round(result.A.requestsPerSecond, 1), p99Ms: round(result.A.p99Ms, 3) },
        B: { requestsPerSecond: round(result.B.requestsPerSecond, 1), p99Ms: round(result.B.p99Ms, 3) },
        ratio: { throughput: round(result.ratio.throughput, 4), p99: round(result.ratio.p99, 4) },
        runs: {
          A: result.A.runs.map(brief),
          B: result.B.runs.map(brief),
        },
        upload: {
          connections: settings.uploadConnections,
          U: { requestsPerSecond: round(result.upload.U.requestsPerSecond, 1), p99Ms: round(result.upload.U.p99Ms, 3) },
          B: { requestsPerSecond: round(result.upload.B.requestsPerSecond, 1), p99Ms: round(result.upload.B.p99Ms, 3) },
          ratio: { throughput: round(result.upload.ratio.throughput, 4), p99: round(result.upload.ratio.p99, 4) },
          pass: result.upload.pass,
          runs: {
            U: result.upload.U.runs.map(brief),
            B: result.upload.B.runs.map(brief),
          },
        },
        problems: result.problems,
      })),
    })}`,
  )
  return problems.length > 0 ? 1 : 0
}

function round(value: number, digits: number): number | null {
  return Number.isFinite(value) ? Number(value.toFixed(digits)) : null
}

function brief(run: Run) {
  return {
    requestsPerSecond: round(run.requestsPerSecond, 1),
    p99Ms: round(run.p99Ms, 3),
    p50Ms: round(run.p50Ms, 3),
    ok: run.ok,
    non2xx: run.non2xx,
    errors: run.errors,
    rows: run.rows,
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  console.error('bench failed:', error)
  process.exitCode = interrupted ? 130 : 1
}
