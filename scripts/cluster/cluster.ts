// The production topology on one machine, with real processes: a PostgreSQL primary and a streaming
// replica, Redis, M worker processes, N API processes and HAProxy in front of them. Started in that
// order, each only once the one before serves; stopped in the reverse order, by PID. See
// docs/operations.md (what runs, how it maps onto production) and docs/decisions.md, "Production
// topology (issue 21)".
import { randomBytes, generateKeyPairSync } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, chmodSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createConnection } from 'node:net'
import {
  ManagedProcess,
  freePorts,
  isAlive,
  portFree,
  portInUse,
  waitUntil,
  runToEnd,
  tail,
  type ProcessRecord,
  type ProcessSpec,
} from './processes.ts'
import {
  layoutOf,
  postgresBinaries,
  postgresUser,
  startPrimaryAndReplica,
  type Passwords,
  type PostgresServer,
} from './postgres.ts'
import { HAPROXY_INSTALL, haproxyBinary, haproxySpec, serverStates, writeHaproxyConfig } from './haproxy.ts'

export const REPO_ROOT = resolve(import.meta.dirname, '../..')

export interface ClusterOptions {
  /** API processes behind the load balancer (default 2). */
  apis: number
  /** Worker processes (default 1). With 0, the API processes run the workers themselves. */
  workers: number
  /** A directory of the cluster's (created, or empty); default a new one under the system's temp dir. */
  dir?: string
  /** The load balancer's port; 0 (default) picks a free one. */
  lbPort: number
  /** Keep the directory (data and logs) after stopping; always kept when `dir` was given. */
  keep: boolean
  /**
   * Run `npm run migrate` once before any service process starts (default, as a deployment does).
   * Without it every process migrates as it starts, all at once (Kysely's advisory lock serialises them).
   */
  migrateFirst: boolean
  /** Told of each step as it happens. */
  log: (line: string) => void
  /** Told of each process as soon as it is spawned (before it is ready). */
  onSpawned?: (process: ManagedProcess) => void
  /** Told when a process ends that was not being stopped. */
  onUnexpectedExit?: (process: ManagedProcess, how: string) => void
  /**
   * Put a loopback TCP proxy (a process of its own, `dbproxy`) between the service processes (API and
   * worker) and the primary, and another (`replicaproxy`) between the API processes and the replica, so
   * that either database can be cut for them without touching PostgreSQL (the chaos run). The replica
   * keeps streaming from the primary directly. Default false.
   */
  databaseProxy?: boolean
  /**
   * Start a `nats-server` of the cluster's own with JetStream (its own port and data directory under
   * the cluster's), and give the service processes its NATS_URL: the relay publishes the outbox to it
   * (the chaos run's stream ledger). Default false.
   */
  nats?: boolean
}

export interface Cluster {
  dir: string
  lbUrl: string
  statsUrl: string
  primary: PostgresServer
  replica: PostgresServer
  redisUrl: string
  /** With `nats`: the cluster's nats-server (JetStream), as the service processes have it in NATS_URL. */
  natsUrl: string | undefined
  apis: { name: string; url: string; pid: number }[]
  /** Worker processes, each with its own /metrics and /health/live at url (WORKER_METRICS_PORT). */
  workers: { name: string; url: string; pid: number }[]
  /** Every loopback port the cluster listens on (the load balancer's stats page included). */
  ports: number[]
  /** The running process of each name (after a restart, the new one); ended ones stay listed until replaced. */
  processes: ManagedProcess[]
  migrations: string
  /** The environment the service processes run with (DATABASE_URL, signing key...): for `npm run cli` against the cluster. */
  serviceEnv: NodeJS.ProcessEnv
  /** With `databaseProxy`: the proxy in front of the primary; cut() cuts the database, restore() brings it back. */
  databaseProxy: DatabaseProxy | undefined
  /** With `databaseProxy`: the proxy between the API processes and the replica (their DATABASE_READ_URL). */
  replicaProxy: DatabaseProxy | undefined
  /**
   * Starts the named process again (api1, worker1, redis...) with the same command, settings and port,
   * once its previous instance has ended (kill it first), and waits until it is ready.
   */
  restart(name: string): Promise<ManagedProcess>
  /** Stops every process it started, newest first, by PID; removes a temporary directory unless kept. */
  stop(): Promise<StopReport>
}

export interface DatabaseProxy {
  port: number
  /** Open connections destroyed, new ones refused; resolves once the port refuses. */
  cut(): Promise<void>
  /** Listening again on the same port; resolves once it accepts. */
  restore(): Promise<void>
}

export interface StopReport {
  stopped: { name: string; pid: number; how: string }[]
  removedDir: boolean
  /** Checked after stopping: PIDs still alive, ports still taken (both empty when all is well). */
  stillAlive: number[]
  portsHeld: number[]
}

export class PrerequisiteError extends Error {}

/** Start-up failed (or was interrupted); what had been started was stopped, as the report says. */
export class StartFailed extends Error {
  readonly report: StopReport
  constructor(cause: unknown, report: StopReport) {
    super((cause as Error).message, { cause })
    this.report = report
  }
}

/** Service settings the cluster sets itself; any other setting of the service is passed through from the environment. */
const OWNED = [
  'PORT',
  'HOST',
  'PUBLIC_BASE_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'DATABASE_READ_URL',
  'REDIS_URL',
  'TRUST_PROXY',
  'RUN_WORKERS',
  'AUTH_SIGNING_KEY',
  'AUTH_SIGNING_KEY_FILE',
  'AUTH_ISSUER',
]

/** What is missing to run the cluster, each with how to install it. */
export function missingPrerequisites(): string[] {
  const missing: string[] = []
  if (!haproxyBinary()) missing.push(`HAProxy (${HAPROXY_INSTALL})`)
  if (!postgresBinaries())
    missing.push(
      'the PostgreSQL server binaries, looked for in /usr/lib/postgresql/*/bin or PG_BIN (apt-get install -y postgresql-15)',
    )
  if (!existsOnPath('redis-server')) missing.push('redis-server (apt-get install -y redis-server)')
  return missing
}

/** nats-server on the PATH or in /usr/sbin (Debian's package), or undefined. */
export function natsServerBinary(): string | undefined {
  if (existsOnPath('nats-server')) return 'nats-server'
  return existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : undefined
}

/** Whether something accepts TCP connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.setTimeout(2000, () => socket.destroy())
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.once('close', () => resolve(false))
  })
}

function existsOnPath(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, command)))
}

/** A directory of the cluster's: created, or given empty. */
function prepareDirectory(dir: string | undefined): { dir: string; temporary: boolean } {
  if (dir === undefined) return { dir: mkdtempSync(join(tmpdir(), 'vetrs-cluster-')), temporary: true }
  const absolute = resolve(dir)
  if (existsSync(absolute) && readdirSync(absolute).length > 0) {
    const hint = existsSync(join(absolute, 'cluster.json'))
      ? ` (if its cluster is still running: npm run cluster -- --stop --dir ${dir})`
      : ''
    throw new Error(`${absolute} is not empty: give a new or empty directory${hint}`)
  }
  mkdirSync(absolute, { recursive: true })
  return { dir: absolute, temporary: false }
}

const secret = () => randomBytes(18).toString('base64url')

/** Starts the topology; on any failure stops what it had started and throws. */
export async function startCluster(options: ClusterOptions, abort: AbortSignal): Promise<Cluster> {
  const missing = missingPrerequisites()
  if (missing.length > 0) throw new PrerequisiteError(missing.join('\n'))
  const pgBin = postgresBinaries()!
  const haproxy = haproxyBinary()!
  const pgUser = postgresUser()
  const { dir, temporary } = prepareDirectory(options.dir)
  // The postgres user traverses it to its own data directories; nothing else in it is readable to others.
  if (pgUser) chmodSync(dir, 0o711)
  const logs = join(dir, 'logs')
  const secrets = join(dir, 'secrets')
  for (const sub of [logs, join(dir, 'redis'), join(dir, 'haproxy')]) mkdirSync(sub, { recursive: true })
  mkdirSync(secrets, { recursive: true, mode: 0o700 })

  const processes: ManagedProcess[] = []
  const stateFile = join(dir, 'cluster.json')
  const writeState = (extra: Record<string, unknown> = {}) =>
    writeFileSync(
      stateFile,
      `${JSON.stringify({ scriptPid: process.pid, dir, processes: processes.map((p) => p.record), ...extra }, null, 2)}\n`,
    )
  const onSpawned = (process: ManagedProcess) => {
    // A restarted process takes its predecessor's place, so that stopping keeps the start order.
    const previous = processes.findIndex((p) => p.spec.name === process.spec.name)
    if (previous >= 0) processes[previous] = process
    else processes.push(process)
    writeState()
    options.onSpawned?.(process)
    process.exited.then(({ code, signal }) => {
      if (!process.stopping) options.onUnexpectedExit?.(process, signal ? `signal ${signal}` : `exit code ${code}`)
    })
  }
  const specs = new Map<string, ProcessSpec>()
  const start = (spec: ProcessSpec) => {
    specs.set(spec.name, spec)
    options.log(`starting ${spec.name}${spec.port ? ` on 127.0.0.1:${spec.port}` : ''}`)
    return ManagedProcess.start(spec, { abort, onSpawned })
  }
  let stopping = false
  const restart = async (name: string): Promise<ManagedProcess> => {
    const spec = specs.get(name)
    const current = processes.find((p) => p.spec.name === name)
    if (!spec || !current) throw new Error(`no process named ${name} in this cluster`)
    if (stopping) throw new Error(`${name}: the cluster is stopping`)
    if (current.running) throw new Error(`${name} (pid ${current.pid}) still runs: end it before restarting it`)
    await current.exited
    return start(spec)
  }
  let databaseProxy: DatabaseProxy | undefined
  let replicaProxy: DatabaseProxy | undefined

  const ports: number[] = []
  let stopped: Promise<StopReport> | undefined
  const stop = (): Promise<StopReport> => {
    stopping = true
    stopped ??= (async () => {
      const report: StopReport = { stopped: [], removedDir: false, stillAlive: [], portsHeld: [] }
      for (const process of [...processes].reverse()) {
        const wasRunning = process.running
        if (wasRunning) options.log(`stopping ${process.spec.name} (pid ${process.pid})`)
        await process.stop()
        const { code, signal } = await process.exited
        report.stopped.push({
          name: process.spec.name,
          pid: process.pid,
          how: `${wasRunning ? '' : 'had already ended, '}${signal ? `signal ${signal}` : `exit code ${code}`}`,
        })
      }
      writeState({ stoppedAt: new Date().toISOString() })
      report.stillAlive = report.stopped.filter((entry) => isAlive(entry.pid)).map((entry) => entry.pid)
      for (const port of ports) if (!(await portFree(port))) report.portsHeld.push(port)
      if (temporary && !options.keep) {
        rmSync(dir, { recursive: true, force: true })
        report.removedDir = true
      }
      options.log(
        `stopped ${report.stopped.length} processes: ${report.stopped.map((entry) => `${entry.name} ${entry.pid} (${entry.how})`).join(', ') || 'none'}`,
      )
      options.log(
        report.stillAlive.length === 0 && report.portsHeld.length === 0
          ? `every process is gone${ports.length > 0 ? ` and ports ${ports.join(', ')} are free` : ''}; ${report.removedDir ? 'removed' : 'kept'} ${dir}`
          : `STILL RUNNING: ${report.stillAlive.join(', ') || 'none'}; ports still taken: ${report.portsHeld.join(', ') || 'none'}`,
      )
      return report
    })()
    return stopped
  }

  try {
    const [primaryPort, replicaPort, redisPort, statsPort, lbFree, proxyPort, replicaProxyPort, ...servicePorts] =
      (await freePorts(7 + options.apis + options.workers)) as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        ...number[],
      ]
    const apiPorts = servicePorts.slice(0, options.apis)
    // Each worker's own listener for /metrics and /health/live (WORKER_METRICS_PORT).
    const workerPorts = servicePorts.slice(options.apis)
    const lbPort = options.lbPort || lbFree
    if (options.lbPort && !(await portFree(options.lbPort)))
      throw new Error(
        `port ${options.lbPort} (--lb-port) is taken on 127.0.0.1: choose another, or leave it out for a free one`,
      )
    ports.push(primaryPort, replicaPort, redisPort, ...apiPorts, ...workerPorts, lbPort, statsPort)
    const lbUrl = `http://127.0.0.1:${lbPort}`
    const passwords: Passwords = { superuser: secret(), app: secret(), replication: secret() }
    writeFileSync(join(secrets, 'passwords.json'), `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 })
    // One signing key for every API process, as in production (AUTH_SIGNING_KEY_FILE, a mounted secret):
    // a token one process issues is accepted by the others.
    const signingKeyFile = join(secrets, 'signing-key.pem')
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    writeFileSync(signingKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 })

    // Connections: each service process has a pool of DATABASE_POOL_SIZE (10) and pg-boss's 4 on the
    // primary; each API process another DATABASE_POOL_SIZE on the replica.
    const serviceProcesses = options.apis + options.workers
    const connections = Math.max(100, serviceProcesses * 20 + 20)
    const layout = layoutOf(dir, pgBin, pgUser)

    const { primary, replica } = await startPrimaryAndReplica({
      layout,
      ports: { primary: primaryPort, replica: replicaPort },
      passwords,
      connections,
      start,
      log: options.log,
      abort,
    })

    const redisUrl = `redis://127.0.0.1:${redisPort}`
    await start({
      name: 'redis',
      command: 'redis-server',
      args: [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        join(dir, 'redis'),
        '--daemonize',
        'no',
      ],
      env: { PATH: process.env.PATH },
      cwd: join(dir, 'redis'),
      logFile: join(logs, 'redis.log'),
      stopLadder: [['SIGTERM', 10_000]],
      startTimeoutMs: 15_000,
      port: redisPort,
      url: redisUrl,
      ready: () => redisCommand(redisPort, 'PING').then((answer) => answer === '+PONG'),
    })

    let natsUrl: string | undefined
    if (options.nats) {
      const [natsPort] = (await freePorts(1)) as [number]
      ports.push(natsPort)
      const natsDir = join(dir, 'nats')
      mkdirSync(natsDir, { recursive: true })
      natsUrl = `nats://127.0.0.1:${natsPort}`
      await start({
        name: 'nats',
        command: natsServerBinary() ?? 'nats-server',
        args: ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', natsDir],
        env: { PATH: process.env.PATH },
        cwd: natsDir,
        logFile: join(logs, 'nats.log'),
        stopLadder: [['SIGTERM', 10_000]],
        startTimeoutMs: 15_000,
        port: natsPort,
        url: natsUrl,
        ready: () => accepts(natsPort),
      })
    }

    /** A loopback TCP proxy process in front of a database server, cut and restored by signals. */
    const startProxy = async (name: string, target: number, port: number): Promise<DatabaseProxy> => {
      ports.push(port)
      await start({
        name,
        command: process.execPath,
        args: ['src/start.mjs', 'scripts/cluster/db-proxy.ts', String(target), String(port)],
        env: { PATH: process.env.PATH },
        cwd: REPO_ROOT,
        logFile: join(logs, `${name}.log`),
        stopLadder: [['SIGTERM', 5000]],
        startTimeoutMs: 30_000,
        port,
        url: `tcp://127.0.0.1:${port}`,
        ready: () => portInUse(port),
      })
      const change = async (signal: NodeJS.Signals, listening: boolean) => {
        const proxy = processes.find((p) => p.spec.name === name)
        if (!proxy?.running) throw new Error(`the ${name} process is not running`)
        proxy.signal(signal)
        await waitUntil(`${name} ${listening ? 'listening' : 'cut'}`, abort, 10_000, async () =>
          listening ? await portInUse(port) : !(await portInUse(port)),
        )
      }
      return { port, cut: () => change('SIGUSR1', false), restore: () => change('SIGUSR2', true) }
    }
    // The service processes reach the primary, and the API processes the replica, through a proxy each
    // when asked.
    if (options.databaseProxy) {
      databaseProxy = await startProxy('dbproxy', primary.port, proxyPort)
      replicaProxy = await startProxy('replicaproxy', replica.port, replicaProxyPort)
    }
    const throughProxy = new URL(primary.dsn)
    throughProxy.port = String(proxyPort)
    const replicaThroughProxy = new URL(replica.dsn)
    replicaThroughProxy.port = String(replicaProxyPort)
    const env = serviceEnvironment({
      DATABASE_URL: databaseProxy ? throughProxy.toString() : primary.dsn,
      REDIS_URL: redisUrl,
      ...(natsUrl ? { NATS_URL: natsUrl } : {}),
      PUBLIC_BASE_URL: lbUrl, // the token issuer: the same for every API process
      TRUST_PROXY: '127.0.0.1', // HAProxy (option forwardfor) connects from loopback: its X-Forwarded-For is believed
      AUTH_SIGNING_KEY_FILE: signingKeyFile,
      RUN_WORKERS: options.workers > 0 ? 'false' : 'true',
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(dir, 'node-compile-cache'),
    })
    let migrations = 'each process migrates as it starts (no separate step)'
    if (options.migrateFirst) {
      options.log('npm run migrate (once, before any service process)')
      // Straight to the primary, as a release step would (the proxy is for the processes that serve).
      migrations = runToEnd(process.execPath, ['src/start.mjs', 'src/cli/main.ts', 'migrate'], {
        cwd: REPO_ROOT,
        env: { ...env, DATABASE_URL: primary.dsn },
        timeoutMs: 120_000,
      })
      writeFileSync(join(logs, 'migrate.log'), `${migrations}\n`)
      const applied = migrations.startsWith('applied') ? (migrations.match(/\d{4}_\w+/g) ?? []) : []
      migrations =
        applied.length > 0
          ? `npm run migrate applied ${applied.length} (${applied[0]} to ${applied.at(-1)}) before any service process started`
          : `npm run migrate: ${migrations.split('\n')[0]}`
    }

    // Workers and API processes all at once, as a deployment starts its replicas.
    const workerSpecs = Array.from({ length: options.workers }, (_, i): ProcessSpec => {
      const logFile = join(logs, `worker${i + 1}.log`)
      return {
        name: `worker${i + 1}`,
        command: process.execPath,
        args: ['src/start.mjs', 'src/worker.ts'],
        env: { ...env, WORKER_METRICS_PORT: String(workerPorts[i]) },
        url: `http://127.0.0.1:${workerPorts[i]}`,
        cwd: REPO_ROOT,
        logFile,
        stopLadder: serviceStop(env),
        startTimeoutMs: 120_000,
        ready: async () => tail(logFile, 50).includes('"msg":"workers ready"'),
      }
    })
    const apiSpecs = apiPorts.map((port, i): ProcessSpec => {
      const url = `http://127.0.0.1:${port}`
      return {
        name: `api${i + 1}`,
        command: process.execPath,
        args: ['src/start.mjs', 'src/main.ts'],
        // API processes read the endpoints that may lag from the replica; workers only write and need none.
        env: {
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_READ_URL: replicaProxy ? replicaThroughProxy.toString() : replica.dsn,
        },
        cwd: REPO_ROOT,
        logFile: join(logs, `api${i + 1}.log`),
        stopLadder: serviceStop(env),
        startTimeoutMs: 120_000,
        port,
        url,
        ready: async () => (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok,
      }
    })
    const started = await Promise.allSettled([...workerSpecs, ...apiSpecs].map(start))
    const failed = started.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason

    const haproxyDir = join(dir, 'haproxy')
    const servers = apiSpecs.map((spec) => ({ name: spec.name, port: spec.port! }))
    const haproxyConfig = { dir: haproxyDir, port: lbPort, statsPort, servers }
    const configFile = writeHaproxyConfig(haproxyConfig)
    await start(
      haproxySpec(haproxy, configFile, haproxyConfig, join(logs, 'haproxy.log'), async () => {
        const states = await serverStates(statsPort)
        if (!servers.every((server) => states[server.name] === 'UP')) return false
        return (await fetch(`${lbUrl}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok
      }),
    )
    writeState({ lbUrl, statsUrl: `http://127.0.0.1:${statsPort}/`, redisUrl, primary, replica })
    return {
      dir,
      lbUrl,
      statsUrl: `http://127.0.0.1:${statsPort}/`,
      primary,
      replica,
      redisUrl,
      natsUrl,
      apis: apiSpecs.map((spec) => ({
        name: spec.name,
        url: spec.url!,
        pid: processes.find((p) => p.spec.name === spec.name)!.pid,
      })),
      workers: workerSpecs.map((spec) => ({
        name: spec.name,
        url: spec.url!,
        pid: processes.find((p) => p.spec.name === spec.name)!.pid,
      })),
      ports,
      processes,
      migrations,
      serviceEnv: env,
      databaseProxy,
      replicaProxy,
      restart,
      stop,
    }
  } catch (error) {
    throw new StartFailed(error, await stop())
  }
}

/** The parent's environment without any service setting the cluster owns, with the cluster's own. */
function serviceEnvironment(own: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of OWNED) delete env[name]
  for (const name of Object.keys(env)) if (name.startsWith('TEST_')) delete env[name]
  // Settings of the service left in the environment (RATE_LIMIT_MAX, LOG_LEVEL...) pass through.
  return { ...env, ...own }
}

/** SIGTERM, then as long as the service's own graceful shutdown may take, then SIGKILL. */
function serviceStop(env: NodeJS.ProcessEnv): ProcessSpec['stopLadder'] {
  const seconds = Number(env.SHUTDOWN_TIMEOUT_SECONDS) || 30
  return [['SIGTERM', (seconds + 5) * 1000]]
}

/** One inline Redis command on a connection of its own; the first line of the answer. */
export function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    let answer = ''
    socket.setTimeout(2000, () => socket.destroy(new Error('Redis did not answer')))
    socket.once('connect', () => socket.write(`${command}\r\n`))
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8')
      if (answer.includes('\r\n')) {
        socket.end()
        resolve(answer.split('\r\n')[0]!)
      }
    })
    socket.once('error', reject)
  })
}

export type { ProcessRecord }
