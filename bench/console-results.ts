// `npm run bench` (last part): every console page the bench can reach, at size (issue 20: the batch
// page of a batch with 100,000 failed results against the API's failed-validation-results list; issue
// 32: every page p99 at most 50 ms on PostgreSQL with 1M held records and a 110,000-failure batch, the
// record search at most 100 ms). One service per database; a batch of students that each fail the USI
// check (one in ten also a second rule) is validated through the API; on PostgreSQL the national scale
// is then inserted straight into the owners' tables: BENCH_CONSOLE_HELD (1,000,000) current held
// versions over 100 RTOs (RTO 90001 among them; six in ten students with search keys) and
// BENCH_CONSOLE_RTOS (4,000) RTOs each with an API client and submission marks under NSW and VIC for
// eight periods (as bench/operator-desk.ts). After VACUUM ANALYZE (PostgreSQL; ANALYZE on PGlite): the
// state autovacuum keeps a live database in. An RTO person and an operator sign in once each through
// the real OpenID Connect flow in Debian's Chromium (as the browser tests do); the requests are then
// plain fetches with the session cookie, every page taken in turn, BENCH_REQUESTS (100) times after 10
// warm-up rounds. Prints each page's p50 and p99 beside its target, the ratio of its p99 to the API's
// first page, and on PostgreSQL what its statements cost the server (bench/statement-timing.ts: the
// statements of one request, their count and their EXPLAIN ANALYZE time), which the machine's load
// affects less than the page's own time. PostgreSQL (DATABASE_URL): BENCH_CONSOLE_RESULTS (100,000);
// PGlite: BENCH_CONSOLE_PGLITE_RESULTS (20,000), without the national scale. Skipped, saying why,
// without Chromium. BENCH_ONLY=postgres skips the PGlite part. BENCH_PAGES (comma-separated parts of the
// requests' names) times only the requests it names, besides the API's first page the ratios divide by;
// BENCH_STATEMENTS (a part of a request's name) prints that request's statements one by one (PostgreSQL);
// BENCH_HOLD_FILE (a path) keeps the service and its database up after the timings while that file exists
// (to explain statements by hand at size).
// The service runs in a process of its own (fork, as bench/embedded-responsiveness.ts), as it does in
// production: this process writes the data (its own pool; on PGlite, whose database lives in the
// service's process, the service's process writes it on command) and sends the timed requests, so the
// service's heap and thread hold neither the loader's data nor the load generator's work. On PostgreSQL
// the batch is validated by a service that is then stopped, and each timed run starts a service afresh.
// BENCH_SERVICE_CONFIGS (';'-separated, default `default`): the configurations timed, in turn, each
// `default` (no flags), Node.js / V8 flags for the service's process (`--max-semi-space-size=32`), or
// `in-process` (the service in this process, as the bench ran it before); BENCH_SERVICE_ROUNDS (1) times
// the list over. PGlite times the first configuration only. The service's process reports its heap at
// the start of the timings (BENCH_HEAP_SNAPSHOT=1: a heap snapshot too, after a full collection), and
// per request its own time, CPU time, event loop delay, GC pauses and statements (over IPC, afterwards).
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8'
import { sql } from 'kysely'
import { type Db, openPostgres } from '../src/platform/db/database.ts'
import { failingStudents, loadBatch } from './batch-loader.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { launchChromium, signIn, CHROMIUM_PATH } from '../test/console/browser.ts'
// Not ../test/support/index.ts: importing it loads the tests' PGlite template (a 43 MB Blob) into the process.
import { freePort } from '../test/support/child-service.ts'
import { demoAuth } from './demo-auth.ts'
import { letters } from '../src/cli/synthetic-data.ts'
import { capture, type CapturedStatement, type LoggedStatement, logStatements, serverTime } from './statement-timing.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100)
const PG_STUDENTS = Number(process.env.BENCH_CONSOLE_RESULTS ?? 100_000)
const PGLITE_STUDENTS = Number(process.env.BENCH_CONSOLE_PGLITE_RESULTS ?? 20_000)
const HELD = Number(process.env.BENCH_CONSOLE_HELD ?? 1_000_000)
const RTOS = Number(process.env.BENCH_CONSOLE_RTOS ?? 4_000)
const PAGE_TARGET_MS = 50 // issue 32: every page
const SEARCH_TARGET_MS = 100 // issue 32: the record search
const PAGE_SIZE = 50 // the console's page of results (RESULTS_PAGE_SIZE)
const adminUrl = process.env.DATABASE_URL || undefined
const ONLY_PAGES = (process.env.BENCH_PAGES ?? '')
  .split(',')
  .map((part) => part.trim())
  .filter((part) => part !== '')
const SHOW_STATEMENTS = process.env.BENCH_STATEMENTS ?? ''
/**
 * The service's configurations, separated by ';': `default` (a process of its own, no flags), Node.js /
 * V8 flags for that process (e.g. `--max-semi-space-size=32`), or `in-process` (the service in this
 * process, beside the loader and the load generator, as the bench ran it before).
 */
const CONFIGURATIONS = (process.env.BENCH_SERVICE_CONFIGS ?? 'default')
  .split(';')
  .map((part) => part.trim())
  .filter((part) => part !== '')
const ROUNDS = Number(process.env.BENCH_SERVICE_ROUNDS ?? 1)
const HEAP_SNAPSHOT = process.env.BENCH_HEAP_SNAPSHOT === '1'

/** Epoch milliseconds at sub-millisecond resolution: one clock for this process and the service's. */
const now = () => performance.timeOrigin + performance.now()

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

interface Pause {
  start: number
  end: number
  kind: string
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
}

/** Garbage collection pauses of this process, in epoch ms, while `into` is set. */
function observeGc(): { on(into: Pause[] | undefined): void } {
  let log: Pause[] | undefined
  new PerformanceObserver((list) => {
    if (!log) return
    for (const entry of list.getEntries()) {
      const start = performance.timeOrigin + entry.startTime
      log.push({
        start,
        end: start + entry.duration,
        kind: GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other',
      })
    }
  }).observe({ entryTypes: ['gc'] })
  return {
    on(into) {
      log = into
    },
  }
}

/** One request as the service saw it: from its 'request' event to its answer's last write. */
interface Served {
  started: number
  ended: number
  /** CPU time of the service's process meanwhile (its background loops too). */
  cpuMs: number
  /** The longest event loop delay of the service's process meanwhile (5 ms resolution). */
  loopDelayMs: number
}

/** What the service's process did while the requests were timed. */
interface ServiceLog {
  statements: LoggedStatement[]
  gc: Pause[]
  served: Served[]
}

interface HeapFigures {
  /** process.memoryUsage(), MB. */
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  /** V8's spaces: committed MB (used MB). */
  spaces: Record<string, string>
  /** With BENCH_HEAP_SNAPSHOT=1: the snapshot's path and the heap used after its full collection (live MB). */
  snapshot?: string
  liveMb?: number
}

function heapFigures(snapshot: boolean): HeapFigures {
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10
  const usage = process.memoryUsage()
  const figures: HeapFigures = {
    rss: mb(usage.rss),
    heapUsed: mb(usage.heapUsed),
    heapTotal: mb(usage.heapTotal),
    external: mb(usage.external),
    arrayBuffers: mb(usage.arrayBuffers),
    spaces: Object.fromEntries(
      getHeapSpaceStatistics()
        .filter((space) => space.space_size > 0)
        .map((space) => [space.space_name, `${mb(space.space_size)} (${mb(space.space_used_size)})`]),
    ),
  }
  if (snapshot) {
    // Writing a snapshot collects first: what is used after it is what is alive.
    figures.snapshot = writeHeapSnapshot()
    figures.liveMb = mb(getHeapStatistics().used_heap_size)
  }
  return figures
}

/**
 * The service and what the bench observes inside its process: GC pauses, each request's CPU time and
 * event loop delay, the statements it sends (bench/statement-timing.ts), its heap. Runs in the
 * service's child process (or in this one for `in-process`); the bench asks it by command.
 */
async function startProbe(env: Record<string, string>) {
  // Imported here: the bench's process, when the service runs apart, does not load the service's code.
  const { loadConfig } = await import('../src/config/config.ts')
  const { createService } = await import('../src/app.ts')
  const port = await freePort() // the built-in identity provider's issuer names the port
  const service = await createService(
    loadConfig({ LOG_LEVEL: 'silent', PORT: String(port), RATE_LIMIT_MAX: '0', ...env }),
    { workers: true },
  )
  const baseUrl = await service.app.listen({ port, host: '127.0.0.1' })
  const gc = observeGc()
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  let log: ServiceLog | undefined
  service.app.server.prependListener('request', (_request, response) => {
    const into = log
    if (!into) return
    const started = now()
    const cpu = process.cpuUsage()
    delay.reset() // one request at a time: the delay sampled until its answer is its own
    response.once('finish', () => {
      const used = process.cpuUsage(cpu)
      into.served.push({
        started,
        ended: now(),
        cpuMs: (used.user + used.system) / 1000,
        loopDelayMs: delay.count > 0 ? delay.max / 1e6 : 0,
      })
    })
  })
  let captured: { done: Promise<CapturedStatement[]>; release: () => void } | undefined
  const commands: Record<string, (args: any) => Promise<unknown>> = {
    heap: async () => heapFigures(HEAP_SNAPSHOT),
    'log-start': async () => {
      log = { statements: [], gc: [], served: [] }
      logStatements(log.statements)
      gc.on(log.gc)
    },
    'log-stop': async () => {
      const done = log!
      log = undefined
      logStatements(undefined)
      gc.on(undefined)
      const shift = performance.timeOrigin
      return {
        ...done,
        statements: done.statements.map((st) => ({ ...st, sent: st.sent + shift, answered: st.answered + shift })),
      }
    },
    // The statements of the requests sent between the two (one request at a time).
    'capture-start': async () => {
      let release = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      captured = { done: capture(() => held), release }
    },
    'capture-stop': async () => {
      const { done, release } = captured!
      captured = undefined
      release()
      return await done
    },
    // PGlite's database lives in this process: the bench's batch is written here.
    load: async ({ students }: { students: number }) =>
      (await loadBatch(service.database.db, students, undefined, failingStudents)).token,
    analyze: async () => {
      await sql`ANALYZE`.execute(service.database.db)
    },
    close: async () => {
      await service.close()
    },
  }
  return { baseUrl, call: (command: string, args?: unknown) => commands[command]!(args) }
}

/** The service of one run, wherever it runs. */
interface ServiceHandle {
  baseUrl: string
  inProcess: boolean
  call<T = unknown>(command: string, args?: unknown): Promise<T>
  close(): Promise<void>
}

/** The services' processes running. */
const children = new Set<ChildProcess>()

async function startService(env: Record<string, string>, configuration: string): Promise<ServiceHandle> {
  if (configuration === 'in-process') {
    const probe = await startProbe(env)
    return {
      baseUrl: probe.baseUrl,
      inProcess: true,
      call: (command, args) => probe.call(command, args) as never,
      close: async () => {
        await probe.call('close')
      },
    }
  }
  const flags = configuration === 'default' ? [] : configuration.split(/\s+/).filter((flag) => flag !== '')
  const child = fork(new URL(import.meta.url).pathname, ['serve'], {
    execArgv: flags, // the configuration's flags only, not this process's
    env: { ...process.env, BENCH_SERVICE_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced', // the captured statements' values: dates, buffers
  })
  children.add(child)
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      children.delete(child)
      reject(new Error(`the service's process exited (${code ?? signal})`))
    }),
  )
  exited.catch(() => {})
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let next = 0
  child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
    if (message.id === undefined) return
    const waiting = pending.get(message.id)
    pending.delete(message.id)
    if (message.error !== undefined) waiting?.reject(new Error(message.error))
    else waiting?.resolve(message.result)
  })
  const baseUrl = await Promise.race([
    exited,
    new Promise<string>((resolve) => child.once('message', (message: { baseUrl: string }) => resolve(message.baseUrl))),
  ])
  const call = <T>(command: string, args?: unknown) =>
    Promise.race([
      exited,
      new Promise<T>((resolve, reject) => {
        const id = next++
        pending.set(id, { resolve, reject })
        child.send({ id, command, args })
      }),
    ])
  return {
    baseUrl,
    inProcess: false,
    call,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      await call('close').catch(() => {})
      if (child.connected) child.disconnect()
      const stuck = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await gone
      clearTimeout(stuck)
    },
  }
}

/** The child: the service and its probe, answering the bench's commands over IPC. */
async function serve(): Promise<void> {
  const probe = await startProbe(JSON.parse(process.env.BENCH_SERVICE_ENV!))
  process.on('message', async ({ id, command, args }: { id: number; command: string; args: unknown }) => {
    try {
      const result = await probe.call(command, args)
      process.send!({ id, result })
    } catch (error) {
      process.send!({ id, error: String((error as Error)?.stack ?? error) })
    }
    if (command === 'close') process.exit(0)
  })
  process.on('disconnect', () => process.exit(0))
  process.send!({ baseUrl: probe.baseUrl })
}

interface Timing {
  name: string
  p50: number
  p99: number
}

interface Request {
  name: string
  send: () => Promise<Response>
  /** The issue's p99 target (ms); none for the API's own reads, shown for comparison. */
  target?: number
}

/** One timed request, as this process (the load generator) saw it. */
interface Sample {
  ms: number
  started: number
  /** CPU time of this process meanwhile (the load generator; the service's too when in-process). */
  cpuMs: number
  /** GC pauses of this process overlapping the request (the service's own when in-process). */
  gcMs: number
}

const clientGc = observeGc()

/** Each request REQUESTS times after 10 warm-ups, the requests taken in turn so each sees the same machine. */
async function timeInTurn(
  service: ServiceHandle,
  requests: Request[],
): Promise<{ timings: Timing[]; outliers: string[]; heap: HeapFigures }> {
  for (let i = 0; i < 10; i++)
    for (const request of requests) {
      const response = await request.send()
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`${request.name}: ${response.status}`)
    }
  const samples = requests.map(() => [] as Sample[])
  const heap = await service.call<HeapFigures>('heap')
  const mine = service.inProcess ? undefined : heapFigures(false)
  console.error(
    `  timing ${requests.length} requests ${REQUESTS} times; the service's process: ${JSON.stringify(heap)}${mine ? `; the bench's process (loader, load generator): heap ${mine.heapUsed} MB used of ${mine.heapTotal} MB, RSS ${mine.rss} MB` : ''}`,
  )
  const pauses: Pause[] = []
  if (!service.inProcess) clientGc.on(pauses)
  await service.call('log-start')
  for (let i = 0; i < REQUESTS; i++)
    for (const [index, request] of requests.entries()) {
      const cpu = process.cpuUsage()
      const started = now()
      const response = await request.send()
      await response.arrayBuffer()
      const ended = now()
      const used = process.cpuUsage(cpu)
      samples[index]!.push({
        ms: ended - started,
        started,
        cpuMs: (used.user + used.system) / 1000,
        gcMs: overlap(pauses, started, ended).ms,
      })
    }
  clientGc.on(undefined)
  const log = await service.call<ServiceLog>('log-stop')
  const outliers: string[] = []
  const timings = requests.map((request, index) => {
    const all = samples[index]!
    const sorted = all.map((sample) => sample.ms).sort((a, b) => a - b)
    const p99 = percentile(sorted, 99)
    outliers.push(...explainOutliers(request.name, all, p99, log, service.inProcess))
    return { name: request.name, p50: percentile(sorted, 50), p99 }
  })
  return { timings, outliers, heap }
}

/** The pauses overlapping [from, to): their total within it and their kinds. */
function overlap(pauses: Pause[], from: number, to: number): { ms: number; kinds: string[] } {
  const within = pauses.filter((gc) => gc.end > from && gc.start < to)
  return {
    ms: within.reduce((sum, gc) => sum + Math.min(gc.end, to) - Math.max(gc.start, from), 0),
    kinds: within.map((gc) => gc.kind),
  }
}

/** The background loops' statements (queue polls and maintenance, webhook delivery, the outbox relay). */
const BACKGROUND = /pgboss|webhook_|outbox|event_relay|relay_position/i

/**
 * What the samples at or above p99 had that the median sample had not: the load generator's CPU time
 * and GC pauses; the service's time for the request (its 'request' event to its answer's last write),
 * its process's CPU time, GC pauses and longest event loop delay; the statements overlapping (the
 * request's own and the background loops'), and their slowest, each beside its median over all samples.
 */
function explainOutliers(name: string, samples: Sample[], p99: number, log: ServiceLog, inProcess: boolean): string[] {
  const describe = (sample: Sample) => {
    const ended = sample.started + sample.ms
    const overlapping = log.statements.filter((st) => st.answered > sample.started && st.sent < ended)
    const background = overlapping.filter((st) => BACKGROUND.test(st.text))
    const slowest = overlapping.reduce<LoggedStatement | undefined>(
      (worst, st) => (!worst || st.answered - st.sent > worst.answered - worst.sent ? st : worst),
      undefined,
    )
    // The service's record of this request: the one it received while this sample was outstanding.
    const served = log.served.find((s) => s.started >= sample.started - 1 && s.started < ended)
    const gc = overlap(log.gc, sample.started, ended)
    return {
      ms: sample.ms,
      cpuMs: sample.cpuMs,
      gcMs: sample.gcMs,
      serviceMs: served ? served.ended - served.started : Number.NaN,
      serviceCpuMs: served?.cpuMs ?? Number.NaN,
      serviceGcMs: gc.ms,
      serviceGcKinds: gc.kinds,
      loopDelayMs: served?.loopDelayMs ?? Number.NaN,
      statements: overlapping.length,
      background: background.length,
      backgroundTexts: [...new Set(background.map((st) => st.text.slice(0, 60)))],
      slowestMs: slowest ? slowest.answered - slowest.sent : 0,
      slowest: slowest?.text.slice(0, 80) ?? '',
    }
  }
  type Described = ReturnType<typeof describe>
  const described = samples.map(describe)
  const median = (pick: (d: Described) => number) =>
    percentile(
      described.map(pick).sort((a, b) => a - b),
      50,
    )
  const line = (
    label: string,
    d: Omit<Described, 'backgroundTexts' | 'slowest' | 'serviceGcKinds'> & { serviceGcKinds?: string[] },
  ) =>
    `    ${label}: ${d.ms.toFixed(1)} ms; ${inProcess ? 'process (service and bench)' : 'bench'} CPU ${d.cpuMs.toFixed(1)} ms${inProcess ? '' : `, GC ${d.gcMs.toFixed(1)} ms; service ${d.serviceMs.toFixed(1)} ms, its process's CPU ${d.serviceCpuMs.toFixed(1)} ms`}; GC ${d.serviceGcMs.toFixed(1)} ms${d.serviceGcKinds && d.serviceGcKinds.length > 0 ? ` (${d.serviceGcKinds.join(', ')})` : ''}; loop delay max ${d.loopDelayMs.toFixed(1)} ms; ${d.statements} statements overlapping (${d.background} background); slowest statement ${d.slowestMs.toFixed(1)} ms`
  const lines = [
    `  ${name}: samples at or above p99 (${p99.toFixed(1)} ms) against the median of all ${samples.length}`,
    line('median', {
      ms: median((d) => d.ms),
      cpuMs: median((d) => d.cpuMs),
      gcMs: median((d) => d.gcMs),
      serviceMs: median((d) => d.serviceMs),
      serviceCpuMs: median((d) => d.serviceCpuMs),
      serviceGcMs: median((d) => d.serviceGcMs),
      loopDelayMs: median((d) => d.loopDelayMs),
      statements: median((d) => d.statements),
      background: median((d) => d.background),
      slowestMs: median((d) => d.slowestMs),
    }),
  ]
  for (const d of described.filter((d) => d.ms >= p99).sort((a, b) => b.ms - a.ms))
    lines.push(
      `${line('outlier', d)}: ${d.slowest}${d.backgroundTexts.length > 0 ? `; background: ${d.backgroundTexts.join(' | ')}` : ''}`,
    )
  return lines
}

/** A run's figures: one configuration of the service, timed once. */
interface RunResult {
  database: string
  configuration: string
  round: number
  rows: string[]
  within: number
  targets: number
  worst: string
  heapUsedMb: number
}

/**
 * One database: its data loaded once, then each configuration timed in turn (ROUNDS rounds), each in a
 * service started afresh. PostgreSQL: the data is written by this process (its own pool) and validated
 * by a service of its own, stopped before the timings; PGlite (the database lives in the service's
 * process): by the service of the first configuration, the only one timed.
 */
async function measure(database: string, env: Record<string, string>, students: number): Promise<RunResult[]> {
  const browser = await launchChromium()
  const results: RunResult[] = []
  let own: Db | undefined
  let held: ServiceHandle | undefined
  try {
    const pglite = database !== 'postgres'
    let service = await startService(env, pglite ? CONFIGURATIONS[0]! : 'default')
    held = service
    let auth = await demoAuth(service.baseUrl)
    if (!pglite)
      own = (
        await openPostgres(env.DATABASE_URL!, { poolSize: 4, connectTimeoutSeconds: 10 }, undefined, 'DATABASE_URL')
      ).db
    const token = own
      ? (await loadBatch(own, students, undefined, failingStudents)).token
      : await service.call<string>('load', { students })
    const batchPath = `/vet-provider/v1/NSW/transaction-batch/${token}`
    const validateStarted = performance.now()
    const validate = await fetch(`${service.baseUrl}${batchPath}/validate`, { method: 'POST', headers: auth })
    if (!validate.ok) throw new Error(`validate: ${validate.status}`)
    for (;;) {
      const status = (await (await fetch(`${service.baseUrl}${batchPath}/validate`, { headers: auth })).json()) as {
        validationStatus: string
      }
      if (status.validationStatus === 'Validated') break
      if (performance.now() - validateStarted > 10 * 60_000)
        throw new Error(`validation still ${status.validationStatus}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    console.error(
      `  ${database}: ${students} students validated in ${((performance.now() - validateStarted) / 1000).toFixed(1)} s`,
    )
    // The state autovacuum keeps a live database in (as bench/reconciliation.ts): the rows just
    // written are visible to index-only scans.
    if (own) {
      await nationalScale(own)
      await sql`VACUUM ANALYZE`.execute(own)
      // The service that validated is not timed: each configuration's service starts afresh.
      await service.close()
      held = undefined
    } else await service.call('analyze')
    const heldStudent = own ? await studentUid(own) : undefined
    const runs = pglite
      ? [{ configuration: CONFIGURATIONS[0]!, round: 1 }]
      : Array.from({ length: ROUNDS }, (_, r) =>
          CONFIGURATIONS.map((configuration) => ({ configuration, round: r + 1 })),
        ).flat()
    for (const [index, run] of runs.entries()) {
      if (!pglite) {
        service = await startService(env, run.configuration)
        held = service
        auth = await demoAuth(service.baseUrl)
      }
      console.error(`  ${database}, service ${run.configuration}, round ${run.round}: ${service.baseUrl}`)
      const last = index === runs.length - 1
      results.push(await timeRun(database, env, students, service, auth, token, heldStudent, browser, run, last))
      await service.close()
      held = undefined
    }
  } finally {
    await held?.close().catch(() => {})
    await own?.destroy()
    await browser.close()
  }
  return results
}

/** Every page timed against one service. */
async function timeRun(
  database: string,
  env: Record<string, string>,
  students: number,
  service: ServiceHandle,
  auth: { authorization: string },
  token: string,
  heldStudent: string | undefined,
  browser: Awaited<ReturnType<typeof launchChromium>>,
  run: { configuration: string; round: number },
  last: boolean,
): Promise<RunResult> {
  const baseUrl = service.baseUrl
  const batch = `${baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
  const list = `${batch}/failed-validation-results?pageSize=${PAGE_SIZE}`
  const first = (await (await fetch(list, { headers: auth })).json()) as {
    numberOfResults: number
    numberOfPages: number
  }
  const deepPage = Math.max(1, Math.floor(first.numberOfPages * 0.9))

  const person = await signedIn(browser, baseUrl, 'staff-90001')
  const operator = await signedIn(browser, baseUrl, 'operator')
  const rto = `${baseUrl}/console/rto/90001`
  const page = `${rto}/batches/NSW/${token}`
  const check = await person.get(page)()
  const html = await check.text()
  if (check.status !== 200 || !html.includes('Failed results by rule'))
    throw new Error(`console page: ${check.status} ${html.slice(0, 200)}`)
  const allRequests: Request[] = [
    {
      name: `API failed-validation-results, page 1 of ${first.numberOfPages}`,
      send: () => fetch(list, { headers: auth }),
    },
    {
      name: `API failed-validation-results, page ${deepPage}`,
      send: () => fetch(`${list}&pageNumber=${deepPage}`, { headers: auth }),
    },
    // What the console's batch page reads besides the results, as the API answers each.
    { name: 'API batch (record counts by type)', send: () => fetch(batch, { headers: auth }) },
    { name: 'API validation status', send: () => fetch(`${batch}/validate`, { headers: auth }) },
    { name: 'console batch page, page 1', send: person.get(page), target: PAGE_TARGET_MS },
    {
      name: `console batch page, page ${deepPage}`,
      send: person.get(`${page}?page=${deepPage}`),
      target: PAGE_TARGET_MS,
    },
    {
      name: 'console batch page filtered to rule BRTS01180, page 1',
      send: person.get(`${page}?rule=BRTS01180`),
      target: PAGE_TARGET_MS,
    },
    // Issue 32: every other page an RTO person and an operator read.
    { name: 'console home (periods and task list)', send: person.get(`${rto}/`), target: PAGE_TARGET_MS },
    { name: 'console batch list', send: person.get(`${rto}/batches`), target: PAGE_TARGET_MS },
    // The batch list searched by a record it holds (one student's family name; the USI every student
    // of the batch shares).
    {
      name: 'console batch list searched by a family name',
      send: person.get(`${rto}/batches?q=Bench${letters(students - 7)}`),
      target: PAGE_TARGET_MS,
    },
    {
      name: `console batch list searched by a USI ${students} records share`,
      send: person.get(`${rto}/batches?q=7KQ3NHV8RN`),
      target: PAGE_TARGET_MS,
    },
    { name: 'console over-time page (charts)', send: person.get(`${rto}/trends`), target: PAGE_TARGET_MS },
    { name: 'console assessment page', send: person.get(`${rto}/assessment`), target: PAGE_TARGET_MS },
    { name: 'console declarations page', send: person.get(`${rto}/declarations`), target: PAGE_TARGET_MS },
    ...(heldStudent
      ? [
          {
            name: 'console record search by a client identifier',
            send: person.get(`${rto}/records?q=C100`),
            target: SEARCH_TARGET_MS,
          },
          {
            name: 'console record search by a family name (50 of 500)',
            send: person.get(`${rto}/records?q=Family100`),
            target: SEARCH_TARGET_MS,
          },
          {
            name: 'console record page (a held student)',
            send: person.get(`${rto}/records?type=Student&uid=${heldStudent}`),
            target: PAGE_TARGET_MS,
          },
          {
            name: `console All RTOs (${RTOS + 1} RTOs)`,
            send: operator.get(`${baseUrl}/console/`),
            target: PAGE_TARGET_MS,
          },
          {
            name: 'console All RTOs searched "123"',
            send: operator.get(`${baseUrl}/console/?q=123`),
            target: PAGE_TARGET_MS,
          },
          {
            name: 'console collection NSW (standings and progress chart)',
            send: operator.get(`${baseUrl}/console/collection`),
            target: PAGE_TARGET_MS,
          },
          { name: 'console calendar', send: operator.get(`${baseUrl}/console/calendar`), target: PAGE_TARGET_MS },
        ]
      : []),
  ]
  const requests = allRequests.filter(
    (request, index) =>
      index === 0 || ONLY_PAGES.length === 0 || ONLY_PAGES.some((part) => request.name.includes(part)),
  )
  const { timings, outliers, heap } = await timeInTurn(service, requests)
  for (const line of outliers) console.error(line)
  // What each page's statements cost the server: one request's statements, explained (PostgreSQL).
  const costs: string[] = []
  if (database === 'postgres')
    for (const request of requests) {
      await service.call('capture-start')
      await (await request.send()).arrayBuffer()
      const statements = await service.call<CapturedStatement[]>('capture-stop')
      const cost = await serverTime(env.DATABASE_URL!, statements)
      if (SHOW_STATEMENTS && request.name.includes(SHOW_STATEMENTS))
        for (const statement of statements)
          console.error(
            `  ${request.name}: ${statement.ms.toFixed(1)} ms: ${statement.text.replace(/\s+/g, ' ').slice(0, 300)}`,
          )
      costs.push(`${cost.count} | ${cost.serverMs.toFixed(1)}`)
    }
  else costs.push(...requests.map(() => '- | -'))
  await person.context.close()
  await operator.context.close()
  if (last && process.env.BENCH_HOLD_FILE) {
    clearTimeout(watchdog)
    console.error(
      `  ${database}: held at ${env.DATABASE_URL || 'PGlite'} (${baseUrl}) while ${process.env.BENCH_HOLD_FILE} exists`,
    )
    while (existsSync(process.env.BENCH_HOLD_FILE)) await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  const apiFirst = timings[0]!.p99
  const targeted = timings.filter((_, i) => requests[i]!.target !== undefined)
  const missed = targeted.filter((t) => t.p99 > requests[timings.indexOf(t)]!.target!)
  const worst = [...targeted].sort((a, b) => b.p99 - a.p99).slice(0, 3)
  return {
    database,
    configuration: run.configuration,
    round: run.round,
    within: targeted.length - missed.length,
    targets: targeted.length,
    worst: worst.map((t) => `${t.name} ${t.p99.toFixed(1)}`).join('; '),
    heapUsedMb: heap.heapUsed,
    rows: timings.map((t, i) => {
      const target = requests[i]!.target
      const met = target === undefined ? '' : t.p99 <= target ? `${target}: met` : `${target}: not met`
      return `| ${database} | ${run.configuration} | ${run.round} | ${first.numberOfResults} | ${t.name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${met} | ${(t.p99 / apiFirst).toFixed(2)} | ${costs[i]} |`
    }),
  }
}

/** A person signed in through Chromium, and a way to fetch console pages with their session. */
async function signedIn(browser: Awaited<ReturnType<typeof launchChromium>>, baseUrl: string, username: string) {
  const { context } = await signIn(browser, baseUrl, username)
  let cookie = (await context.cookies(`${baseUrl}/console/`)).map((c) => `${c.name}=${c.value}`).join('; ')
  if (!cookie) throw new Error(`no console session cookie after signing in as ${username}`)
  const get = (url: string) => async () => {
    const response = await fetch(url, { headers: { cookie }, redirect: 'manual' })
    // The session is sealed again on each request (its idle timeout starts again): keep the newest.
    const renewed = response.headers.getSetCookie().find((c) => c.startsWith('vetrs_console='))
    if (renewed) cookie = renewed.split(';')[0]!
    return response
  }
  return { context, get }
}

/**
 * The national scale, inserted straight into the owners' tables in set-based statements (as
 * bench/record-search.ts and bench/operator-desk.ts): HELD current held versions over 100 RTOs, RTO
 * 90001 holding the i divisible by 100; RTOS RTOs with a client and submission marks.
 */
async function nationalScale(db: Db) {
  const started = performance.now()
  for (let from = 1; from <= HELD; from += 100_000) {
    const to = Math.min(HELD, from + 100_000 - 1)
    await sql`
      INSERT INTO held_record (rto_id, resource_type, resource_uid, submission_seq, is_current, state_in_submission,
                               jurisdiction, transaction_batch_token, submitted_by_client, submitted_at, body)
      SELECT CASE WHEN i % 100 = 0 THEN '90001' ELSE 'R' || (i % 100) END,
             CASE WHEN i % 10 < 6 THEN 'Student' ELSE 'SubjectEnrolment' END, md5(i::text)::uuid,
             i, true, 'In submission', 'NSW', 'bench', 'bench', now() - (i || ' seconds')::interval,
             CASE WHEN i % 10 < 6 THEN jsonb_build_object(
               'clientIdentifier', 'C' || i, 'uniqueStudentIdentifier', 'U' || lpad(i::text, 9, '0'),
               'familyName', 'Family' || (i % 2000), 'firstGivenName', 'Given' || (i % 500),
               'dateOfBirth', '2000-01-01', 'emailAddressPrimary', 'someone' || i || '@example.com')
             ELSE jsonb_build_object('subjectEnrolmentUID', md5(i::text)::uuid, 'enrolmentStatus', 'Active') END
        FROM generate_series(${from}::int, ${to}::int) AS i`.execute(db)
  }
  // RTO 90001's held records in reconciliation's index too, as a submit leaves them (the record page
  // lists what a student's record is related to).
  await sql`
    INSERT INTO reconciliation_item (rto_id, resource_type, resource_uid, student_activity_date, submitted_at)
    SELECT rto_id, resource_type, resource_uid, (submitted_at AT TIME ZONE 'UTC')::date, submitted_at
      FROM held_record WHERE rto_id = '90001' AND is_current`.execute(db)
  const periods = [202504, 202503, 202502, 202501, 202404, 202403, 202402, 202401].map((p) => p + 100)
  await sql`
    INSERT INTO api_client (client_id, rto_id, secret_hash, scopes)
    SELECT 'sms-' || i, (10000 + i)::text, 'x', ARRAY['vet:report', 'vet:read']
      FROM generate_series(1, ${RTOS}::int) AS i`.execute(db)
  await sql`
    INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
    SELECT (10000 + i)::text, j, p, now() - (i || ' minutes')::interval, i
      FROM generate_series(1, ${RTOS}::int) AS i, unnest(ARRAY['NSW', 'VIC']) AS j, unnest(${periods}::int[]) AS p`.execute(
    db,
  )
  // RTO 90001's marks too (its home page lists a row per jurisdiction and period it reported under).
  await sql`
    INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
    SELECT '90001', j, p, now(), 1 FROM unnest(ARRAY['NSW', 'VIC']) AS j, unnest(${periods}::int[]) AS p
    ON CONFLICT DO NOTHING`.execute(db)
  // The kept latest submission per RTO and jurisdiction, as submits keep it (migration 0035; absent
  // before it, when the bench measures the code as it was).
  const kept = await sql<{ ok: boolean }>`SELECT to_regclass('rto_jurisdiction_submission') IS NOT NULL AS ok`.execute(
    db,
  )
  if (kept.rows[0]!.ok)
    await sql`
      INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
      SELECT rto_id, jurisdiction, max(last_submitted_at) FROM reporting_period_submission GROUP BY 1, 2`.execute(db)
  await sql`
    INSERT INTO declaration_extension (rto_id, jurisdiction, reporting_period, due_date, reason, granted_by)
    SELECT (10000 + i)::text, 'NSW', 202604, DATE '2027-03-31', 'bench', 'bench'
      FROM generate_series(1, ${RTOS}::int, 10) AS i`.execute(db)
  console.error(
    `  postgres: ${HELD} held records and ${RTOS} RTOs inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

async function studentUid(db: Db): Promise<string> {
  const row = await sql<{ uid: string }>`SELECT md5('100')::uuid::text AS uid`.execute(db)
  return row.rows[0]!.uid
}

/**
 * Node.js flags of the bench's own process (the loader and the load generator), BENCH_CLIENT_NODE_FLAGS
 * (default `--single-threaded-gc`; empty for none): without helper threads its garbage collection does
 * not take the second core from the service and PostgreSQL while a request runs (on a 2-core machine
 * its concurrent marking did, every half second). The bench starts itself again with them.
 */
const CLIENT_FLAGS = (process.env.BENCH_CLIENT_NODE_FLAGS ?? '--single-threaded-gc')
  .split(/\s+/)
  .filter((flag) => flag !== '')
const relaunch = process.argv[2] !== 'serve' && CLIENT_FLAGS.some((flag) => !process.execArgv.includes(flag))

const watchdog =
  process.argv[2] === 'serve' || relaunch
    ? undefined
    : setTimeout(
        () => {
          console.error('console results bench: over budget, giving up')
          for (const child of children) child.kill('SIGKILL') // the services' processes too, or they would run on
          process.exit(2)
        },
        (30 + 3 * ROUNDS * CONFIGURATIONS.length) * 60 * 1000,
      )
watchdog?.unref()

if (process.argv[2] === 'serve') await serve()
else if (relaunch) {
  const bench = spawn(
    process.execPath,
    [...process.execArgv, ...CLIENT_FLAGS, new URL(import.meta.url).pathname, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  )
  bench.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
} else if (!existsSync(CHROMIUM_PATH)) {
  console.log(`\nConsole pages: skipped, no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`)
} else {
  const results =
    process.env.BENCH_ONLY === 'postgres'
      ? []
      : await measure('pglite', { DATA_DIR: 'memory://', DATABASE_URL: '' }, PGLITE_STUDENTS)
  if (adminUrl)
    results.push(
      ...(await withFreshPostgres(adminUrl, (databaseUrl) =>
        measure('postgres', { DATABASE_URL: databaseUrl }, PG_STUDENTS),
      )),
    )
  console.log(
    `\nConsole pages at size, ${REQUESTS} sequential requests each, in turn, after 10 warm-up rounds, from this process against the service in a process of its own (configuration: its Node.js flags, or in-process; a service started afresh for each run) (target: issue 32's p99; ratio = p99 / the API first page's p99; statements and server ms: one request's statements and their EXPLAIN ANALYZE time, PostgreSQL only); load average at the end ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}\n`,
  )
  console.log(
    '| Database | Service | Run | Failed results | Request | p50 ms | p99 ms | Target p99 ms | Ratio to API page 1 p99 | Statements | Server ms |',
  )
  console.log(`|${'---|'.repeat(11)}`)
  for (const result of results) for (const row of result.rows) console.log(row)
  console.log('\nPages within target per run:\n')
  for (const r of results)
    console.log(
      `- ${r.database}, ${r.configuration}, round ${r.round}: ${r.within} of ${r.targets} (service heap at the start ${r.heapUsedMb} MB used); worst p99 ms: ${r.worst}`,
    )
}
