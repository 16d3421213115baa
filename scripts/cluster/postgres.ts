// The cluster's own PostgreSQL: a primary made with initdb and a streaming replica made from it with
// pg_basebackup -R, each in a data directory of the cluster's, on loopback ports of its own, run as
// the `postgres` system user when the script runs as root (PostgreSQL refuses to run as root). The
// machine's own PostgreSQL (port 5432) is never touched.
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import pg from 'pg'
import { ManagedProcess, freePorts, runToEnd, waitUntil, type ProcessSpec, type StopLadder } from './processes.ts'

/** Fast shutdown (SIGINT): clients disconnected, a checkpoint written; then immediate (SIGQUIT). */
export const POSTGRES_STOP: StopLadder = [
  ['SIGINT', 30_000],
  ['SIGQUIT', 5_000],
]

/** The directory of the PostgreSQL binaries: PG_BIN, or the newest under /usr/lib/postgresql. */
export function postgresBinaries(): string | undefined {
  const configured = process.env.PG_BIN
  if (configured) return existsSync(join(configured, 'postgres')) ? configured : undefined
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

/**
 * Who runs PostgreSQL: as root, the `postgres` system user (the Debian packages create it); otherwise
 * the current user, as it is.
 */
export function postgresUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const entry = spawnSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).stdout?.trim()
  const [, , uid, gid] = entry ? entry.split(':') : []
  if (uid === undefined || gid === undefined)
    throw new Error(
      'running as root, PostgreSQL must run as the postgres system user, and there is none: install the PostgreSQL server packages (apt-get install -y postgresql-15), which create it',
    )
  return { uid: Number(uid), gid: Number(gid), name: 'postgres' }
}

export interface PostgresLayout {
  bin: string
  /** DIR/pg: data directories, socket directory and password file, owned by the postgres user. */
  root: string
  primaryData: string
  replicaData: string
  socketDir: string
  user: { uid: number; gid: number } | undefined
  logDir: string
}

export interface Passwords {
  superuser: string
  app: string
  replication: string
}

export const APP_USER = 'vetrs'
export const APP_DATABASE = 'vetrs'
export const REPLICATION_USER = 'replicator'
export const REPLICATION_SLOT = 'vetrs_replica_1'

export function layoutOf(dir: string, bin: string, user: PostgresLayout['user']): PostgresLayout {
  const root = join(dir, 'pg')
  return {
    bin,
    root,
    primaryData: join(root, 'primary'),
    replicaData: join(root, 'replica'),
    socketDir: join(root, 'run'),
    user,
    logDir: join(dir, 'logs'),
  }
}

const postgresEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  LC_ALL: 'C',
  ...extra,
})

function ownedByPostgres(layout: PostgresLayout, path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  if (layout.user) chownSync(path, layout.user.uid, layout.user.gid)
  chmodSync(path, 0o700)
}

/** initdb: passwords for every TCP connection (scram-sha-256), trust only on the cluster's own socket. */
export function initPrimary(layout: PostgresLayout, passwords: Passwords): void {
  ownedByPostgres(layout, layout.root)
  ownedByPostgres(layout, layout.socketDir)
  if (layout.user) {
    // The postgres user must reach its directories through every parent.
    const reach = spawnSync('test', ['-x', layout.root], layout.user)
    if (reach.status !== 0)
      throw new Error(
        `the postgres user cannot reach ${layout.root}: choose a directory whose parents it may traverse (the default, under ${process.env.TMPDIR ?? '/tmp'}, works)`,
      )
  }
  const passwordFile = join(layout.root, 'superuser-password')
  writeFileSync(passwordFile, `${passwords.superuser}\n`, { mode: 0o600 })
  if (layout.user) chownSync(passwordFile, layout.user.uid, layout.user.gid)
  runToEnd(
    join(layout.bin, 'initdb'),
    [
      '--pgdata',
      layout.primaryData,
      '--username',
      'postgres',
      '--pwfile',
      passwordFile,
      '--auth-host',
      'scram-sha-256',
      '--auth-local',
      'trust',
      '--encoding',
      'UTF8',
      '--no-locale',
      '--no-instructions',
    ],
    { cwd: layout.root, env: postgresEnv(), user: layout.user, timeoutMs: 60_000 },
  )
}

/** Settings both servers share, given on the command line (they win over postgresql.auto.conf). */
function serverArgs(layout: PostgresLayout, dataDir: string, port: number, name: string, connections: number) {
  return [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${layout.socketDir}`,
    '-c',
    `cluster_name=${name}`, // also the replica's application_name in pg_stat_replication
    '-c',
    `max_connections=${connections}`,
    '-c',
    'wal_level=replica',
    '-c',
    'max_wal_senders=10',
    '-c',
    'max_replication_slots=10',
    '-c',
    'hot_standby=on',
    // Queries on the replica are not cancelled because the primary vacuumed rows they still read.
    '-c',
    'hot_standby_feedback=on',
    '-c',
    'logging_collector=off',
    '-c',
    'log_line_prefix=%m [%p] %q%u@%d ',
  ]
}

export function serverSpec(
  layout: PostgresLayout,
  role: 'primary' | 'replica',
  port: number,
  connections: number,
  superuserPassword: string,
): ProcessSpec {
  const dataDir = role === 'primary' ? layout.primaryData : layout.replicaData
  return {
    name: role,
    command: join(layout.bin, 'postgres'),
    args: serverArgs(layout, dataDir, port, `vetrs-${role}`, connections),
    env: postgresEnv(),
    cwd: layout.root,
    logFile: join(layout.logDir, `postgres-${role}.log`),
    user: layout.user,
    stopLadder: POSTGRES_STOP,
    startTimeoutMs: 60_000,
    port,
    url: superuserDsn(port, superuserPassword),
    ready: () => query(superuserDsn(port, superuserPassword), 'SELECT 1').then(() => true),
  }
}

export function superuserDsn(port: number, password: string, database = 'postgres'): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
}

export function appDsn(port: number, password: string): string {
  return `postgres://${APP_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${APP_DATABASE}`
}

/** One statement on a connection of its own. */
export async function query<Row extends Record<string, unknown>>(
  dsn: string,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: dsn, connectionTimeoutMillis: 2000 })
  client.on('error', () => {}) // a server going away while we hold the connection is not this script's crash
  await client.connect()
  try {
    return (await client.query<Row>(text, values)).rows
  } finally {
    await client.end().catch(() => {})
  }
}

/** The service's own login (owner of its database, not a superuser) and the replication login. */
export async function createRoles(primaryPort: number, passwords: Passwords): Promise<void> {
  const client = new pg.Client({ connectionString: superuserDsn(primaryPort, passwords.superuser) })
  await client.connect()
  try {
    await client.query(`CREATE ROLE ${APP_USER} LOGIN PASSWORD ${client.escapeLiteral(passwords.app)}`)
    await client.query(
      `CREATE ROLE ${REPLICATION_USER} LOGIN REPLICATION PASSWORD ${client.escapeLiteral(passwords.replication)}`,
    )
    await client.query(`CREATE DATABASE ${APP_DATABASE} OWNER ${APP_USER}`)
  } finally {
    await client.end()
  }
}

/**
 * The replica's data directory: a base backup of the running primary, streaming the WAL written
 * meanwhile (-X stream), with a physical replication slot (-C -S) so the primary keeps the WAL the
 * replica has not yet received, and -R writing standby.signal and primary_conninfo.
 */
export function baseBackup(layout: PostgresLayout, primaryPort: number, passwords: Passwords): void {
  runToEnd(
    join(layout.bin, 'pg_basebackup'),
    [
      '--pgdata',
      layout.replicaData,
      '--host',
      '127.0.0.1',
      '--port',
      String(primaryPort),
      '--username',
      REPLICATION_USER,
      '--no-password',
      '--wal-method',
      'stream',
      '--write-recovery-conf',
      '--create-slot',
      '--slot',
      REPLICATION_SLOT,
      '--checkpoint',
      'fast',
    ],
    {
      cwd: layout.root,
      env: postgresEnv({ PGPASSWORD: passwords.replication }),
      user: layout.user,
      timeoutMs: 120_000,
    },
  )
}

export interface ReplicationState {
  /** pg_stat_replication on the primary, one row per connected standby. */
  standbys: { application_name: string; state: string; sync_state: string; replay_lag_bytes: string }[]
  replicaInRecovery: boolean
}

export async function replicationState(primaryDsn: string, replicaDsn: string): Promise<ReplicationState> {
  const standbys = await query<ReplicationState['standbys'][number]>(
    primaryDsn,
    `SELECT application_name, state, sync_state,
            (pg_current_wal_lsn() - COALESCE(replay_lsn, '0/0'))::text AS replay_lag_bytes
       FROM pg_stat_replication ORDER BY application_name`,
  )
  const [recovery] = await query<{ in_recovery: boolean }>(replicaDsn, 'SELECT pg_is_in_recovery() AS in_recovery')
  return { standbys, replicaInRecovery: recovery?.in_recovery === true }
}

/** One server of the pair: its port, the service's DSN (login vetrs, database vetrs) and the superuser's. */
export interface PostgresServer {
  port: number
  dsn: string
  superuserDsn: string
}

export interface PostgresPair {
  primary: PostgresServer
  replica: PostgresServer
}

/**
 * The primary and its streaming replica, started in order: initdb, the primary, the roles and the
 * database, pg_basebackup -R of the running primary, the replica; resolves once pg_stat_replication on
 * the primary shows the replica streaming. `start` spawns a server and waits until it answers (the
 * caller keeps the process, to stop it). What `npm run cluster` and the tests that need a real replica
 * (test/read-replica.test.ts) both run.
 */
export async function startPrimaryAndReplica(p: {
  layout: PostgresLayout
  ports: { primary: number; replica: number }
  passwords: Passwords
  /** max_connections of each server. */
  connections: number
  start: (spec: ProcessSpec) => Promise<ManagedProcess>
  log: (line: string) => void
  abort: AbortSignal
}): Promise<PostgresPair> {
  const { layout, ports, passwords } = p
  p.log(`initdb of the primary in ${layout.primaryData}`)
  initPrimary(layout, passwords)
  await p.start(serverSpec(layout, 'primary', ports.primary, p.connections, passwords.superuser))
  await createRoles(ports.primary, passwords)
  p.log(`pg_basebackup of the primary into ${layout.replicaData} (slot, -R)`)
  baseBackup(layout, ports.primary, passwords)
  await p.start(serverSpec(layout, 'replica', ports.replica, p.connections, passwords.superuser))
  const server = (port: number): PostgresServer => ({
    port,
    dsn: appDsn(port, passwords.app),
    superuserDsn: superuserDsn(port, passwords.superuser),
  })
  const pair = { primary: server(ports.primary), replica: server(ports.replica) }
  await waitUntil('the replica streams from the primary', p.abort, 30_000, async () => {
    const state = await replicationState(pair.primary.superuserDsn, pair.replica.superuserDsn)
    return state.replicaInRecovery && state.standbys.some((standby) => standby.state === 'streaming')
  })
  return pair
}

/** A primary and streaming replica of a test's own, in a temporary directory, and how to stop them. */
export interface OwnPostgresPair extends PostgresPair {
  /** Stops both servers (replica first, fast shutdown, by PID) and removes the directory. */
  stop(): Promise<void>
}

/**
 * Starts a primary and a streaming replica of the caller's own (as startPrimaryAndReplica) in a new
 * directory under the system's temp dir, on free loopback ports; stops what it started if a step fails.
 * Needs the PostgreSQL server binaries (postgresBinaries()).
 */
export async function startOwnPostgresPair(
  options: { log?: (line: string) => void; connections?: number } = {},
): Promise<OwnPostgresPair> {
  const bin = postgresBinaries()
  if (!bin) throw new Error('no PostgreSQL server binaries (apt-get install -y postgresql-15, or PG_BIN)')
  const user = postgresUser()
  const dir = mkdtempSync(join(tmpdir(), 'vetrs-pg-pair-'))
  if (user) chmodSync(dir, 0o711) // the postgres user passes through to its data directories
  mkdirSync(join(dir, 'logs'), { recursive: true })
  const started: ManagedProcess[] = []
  const stop = async () => {
    for (const server of started.reverse()) await server.stop()
    started.length = 0
    rmSync(dir, { recursive: true, force: true })
  }
  const abort = new AbortController()
  try {
    const [primary, replica] = (await freePorts(2)) as [number, number]
    const secret = () => randomBytes(18).toString('base64url')
    const pair = await startPrimaryAndReplica({
      layout: layoutOf(dir, bin, user),
      ports: { primary, replica },
      passwords: { superuser: secret(), app: secret(), replication: secret() },
      connections: options.connections ?? 50,
      start: (spec) => ManagedProcess.start(spec, { abort: abort.signal, onSpawned: (server) => started.push(server) }),
      log: options.log ?? (() => {}),
      abort: abort.signal,
    })
    return { ...pair, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
