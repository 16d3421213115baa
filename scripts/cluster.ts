// `npm run cluster`: the production topology on this machine, with real processes (docs/operations.md):
// its own PostgreSQL primary and streaming replica, its own Redis, M worker processes, N API processes
// and HAProxy in front of them. Ctrl-C (or SIGTERM) stops everything it started, by PID, newest first.
//
//   npm run cluster                         start, print where everything runs, run until Ctrl-C
//   npm run cluster -- --check              start, verify through the load balancer, print, stop (tests, CI)
//   npm run cluster -- --apis 3 --workers 2 --lb-port 8090 --dir ./cluster
//   npm run cluster -- --stop --dir ./cluster   stop what a killed run in that directory left running
import { parseArgs } from 'node:util'
import { readOptions, wholeNumberOption } from './cluster/command-line.ts'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PrerequisiteError, StartFailed, startCluster, type Cluster, type StopReport } from './cluster/cluster.ts'
import { checkCluster, type CheckReport } from './cluster/check.ts'
import { isAlive, stopRecorded, type ManagedProcess, type ProcessRecord } from './cluster/processes.ts'
import { POSTGRES_STOP } from './cluster/postgres.ts'
import { HAPROXY_STOP } from './cluster/haproxy.ts'

const USAGE = `usage: npm run cluster -- [--apis N] [--workers M] [--lb-port PORT] [--dir DIR] [--keep]
                            [--migrate-at-start] [--check [--timeout SECONDS] [--summary-json FILE]]
       npm run cluster -- --stop --dir DIR

  --apis N            API processes behind the load balancer (default 2)
  --workers M         worker processes (default 1; 0: the API processes run the workers)
  --lb-port PORT      the load balancer's port (default: a free one)
  --dir DIR           a new or empty directory for data and logs, kept afterwards (default: a temporary one, removed)
  --keep              keep the temporary directory after stopping
  --migrate-at-start  no separate migrate step: every process migrates as it starts, all at once
  --check             start, verify through the load balancer, print, stop; exit 0 when all holds
  --timeout SECONDS   with --check: give up (and stop everything) after this long (default 240)
  --summary-json FILE with --check: write what ran where and what was found as JSON
  --stop              stop the processes a killed run recorded in DIR/cluster.json`

function parse() {
  return parseArgs({
    options: {
      apis: { type: 'string', default: '2' },
      workers: { type: 'string', default: '1' },
      'lb-port': { type: 'string', default: '0' },
      dir: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'migrate-at-start': { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '240' },
      'summary-json': { type: 'string' },
      stop: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
}
const values = readOptions(parse, USAGE)
const count = wholeNumberOption(USAGE)
const apis = count('apis', values.apis, 1, 16)
const workers = count('workers', values.workers, 0, 16)
const lbPort = count('lb-port', values['lb-port'], 0, 65535)
const timeoutSeconds = count('timeout', values.timeout, 10, 3600)
const say = (line: string) => console.log(`[cluster] ${line}`)

if (values.stop) process.exit(await stopFromStateFile(values.dir))

// Ctrl-C or SIGTERM: abort a start in progress, then stop in order. Another one, later, kills what is
// left. Under `npm run`, one Ctrl-C arrives twice (from the terminal, and forwarded by npm): a second
// signal within two seconds of the first is that same one.
const abort = new AbortController()
let cluster: Cluster | undefined
const spawned: ManagedProcess[] = []
let firstSignalAt: number | undefined
const onSignal = (signal: string) => {
  if (firstSignalAt === undefined) {
    firstSignalAt = Date.now()
    say(`${signal}: stopping everything this run started, newest first (again to kill at once)`)
    abort.abort()
  } else if (Date.now() - firstSignalAt > 2000) {
    say(`${signal} again: killing what is left (SIGKILL)`)
    for (const managed of spawned) if (managed.running) void managed.kill()
  }
}
process.on('SIGINT', () => onSignal('SIGINT'))
process.on('SIGTERM', () => onSignal('SIGTERM'))

const summaryFile = values['summary-json']
const summary: Record<string, unknown> = { ok: false }
const writeSummary = () => {
  if (summaryFile) writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`)
}
let deadline: NodeJS.Timeout | undefined
if (values.check) {
  deadline = setTimeout(() => {
    say(`--check did not finish within ${timeoutSeconds} s: stopping`)
    summary.error = `timed out after ${timeoutSeconds} s`
    abort.abort()
  }, timeoutSeconds * 1000)
}

let exitCode = 0
let failure: unknown
try {
  const started = Date.now()
  cluster = await startCluster(
    {
      apis,
      workers,
      lbPort,
      keep: values.keep,
      migrateFirst: !values['migrate-at-start'],
      log: say,
      onSpawned: (managed) => spawned.push(managed),
      onUnexpectedExit: (managed, how) => {
        say(`${managed.spec.name} (pid ${managed.pid}) ended unexpectedly (${how}); its log: ${managed.spec.logFile}`)
        if (values.check) {
          summary.error = `${managed.spec.name} ended unexpectedly (${how})`
          abort.abort()
        }
      },
      ...(values.dir === undefined ? {} : { dir: values.dir }),
    },
    abort.signal,
  )
  Object.assign(summary, describe(cluster), { startSeconds: (Date.now() - started) / 1000 })
  writeSummary()
  say(`started in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  console.log(formatSummary(cluster))
  if (values.check) {
    const report: CheckReport = await Promise.race([
      checkCluster(cluster, say),
      new Promise<never>((_, reject) =>
        abort.signal.addEventListener('abort', () => reject(new Error(String(summary.error ?? 'interrupted')))),
      ),
    ])
    summary.check = report
    say('check passed')
  } else {
    say('running; Ctrl-C (or SIGTERM to this script) stops everything')
    await new Promise((resolve) => abort.signal.addEventListener('abort', resolve))
  }
} catch (error) {
  failure = error
  exitCode = error instanceof PrerequisiteError ? 3 : 1
  summary.error ??= (error as Error).message
  console.error(
    error instanceof PrerequisiteError
      ? `npm run cluster needs what is not installed here:\n${(error as Error).message.replace(/^/gm, '  ')}`
      : firstSignalAt !== undefined && error instanceof StartFailed
        ? `[cluster] stopped before it was up (${(error as Error).message})`
        : `[cluster] failed: ${(error as Error).message}`,
  )
} finally {
  clearTimeout(deadline)
  const report = cluster ? await cluster.stop() : stopReportOf(failure)
  if (report) {
    summary.stop = report
    if (report.stillAlive.length > 0 || report.portsHeld.length > 0) exitCode = 1
  }
  if (exitCode === 0 && values.check) summary.ok = true
  writeSummary()
}
process.exit(exitCode)

/** What a failed start stopped (its report travels with the error). */
function stopReportOf(error: unknown): StopReport | undefined {
  return error instanceof StartFailed ? error.report : undefined
}

function describe(cluster: Cluster) {
  return {
    dir: cluster.dir,
    lbUrl: cluster.lbUrl,
    statsUrl: cluster.statsUrl,
    primary: cluster.primary,
    replica: cluster.replica,
    redisUrl: cluster.redisUrl,
    apis: cluster.apis,
    processes: cluster.processes.map((managed) => managed.record),
    ports: cluster.ports,
    migrations: cluster.migrations,
  }
}

function formatSummary(cluster: Cluster): string {
  const rows = cluster.processes.map((managed) => {
    const { name, pid, url, logFile } = managed.record
    const where =
      name === 'haproxy'
        ? `${url} (stats ${cluster.statsUrl})`
        : name === 'primary'
          ? `127.0.0.1:${cluster.primary.port}`
          : name === 'replica'
            ? `127.0.0.1:${cluster.replica.port} (hot standby)`
            : (url ?? '(no port: queue workers)')
    return [name, String(pid), where, logFile]
  })
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length), 7))
  const line = (cells: string[]) =>
    `  ${cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`.trimEnd()
  return [
    '',
    `VET Reporting Service cluster in ${cluster.dir}`,
    line(['process', 'pid', 'address', 'log']),
    ...rows.map(line),
    '',
    `  Load balancer (call the service here): ${cluster.lbUrl}`,
    `  API processes:  ${cluster.apis.map((api) => `${api.name} ${api.url}`).join(', ')}`,
    `  Workers:        ${cluster.workers.map((worker) => `${worker.name} ${worker.url}/metrics`).join(', ') || 'none (the API processes run the jobs)'}`,
    `  Primary DSN:    ${cluster.primary.dsn}`,
    `  Replica DSN:    ${cluster.replica.dsn}   (read-only, streaming; the API processes' DATABASE_READ_URL)`,
    `  Superuser:      ${cluster.primary.superuserDsn}`,
    `  Redis:          ${cluster.redisUrl}`,
    `  Secrets:        ${join(cluster.dir, 'secrets')} (database passwords, the token signing key)`,
    `  Migrations:     ${cluster.migrations}`,
    '',
  ].join('\n')
}

/** --stop: the processes a run recorded in DIR/cluster.json, newest first, each only if it still runs that program. */
async function stopFromStateFile(dir: string | undefined): Promise<number> {
  if (!dir) {
    console.error(`--stop needs --dir, the directory of the run to stop\n\n${USAGE}`)
    return 2
  }
  const stateFile = join(dir, 'cluster.json')
  if (!existsSync(stateFile)) {
    console.error(`no ${stateFile}: nothing was started there`)
    return 1
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { scriptPid: number; processes: ProcessRecord[] }
  if (isAlive(state.scriptPid) && state.scriptPid !== process.pid) {
    say(
      `the run that started them still runs (pid ${state.scriptPid}): stop it instead (Ctrl-C, or kill -TERM ${state.scriptPid})`,
    )
    return 1
  }
  for (const record of [...state.processes].reverse()) {
    const ladder =
      record.name === 'primary' || record.name === 'replica'
        ? POSTGRES_STOP
        : record.name === 'haproxy'
          ? HAPROXY_STOP
          : ([['SIGTERM', 35_000]] as const)
    say(`${record.name} (pid ${record.pid}): ${await stopRecorded(record, ladder)}`)
  }
  return 0
}
