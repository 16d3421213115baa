// One SQL dialect, PostgreSQL, over two transports: embedded PGlite (the default, data in a directory
// or in memory) and a real PostgreSQL server through DATABASE_URL. Everything above this file runs
// the same Kysely code on both.
import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import {
  Kysely,
  PGliteDialect,
  PostgresDialect,
  sql,
  type LogEvent,
  type QueryResult,
  type RawBuilder,
  type Transaction,
} from 'kysely'
import type { ReadonlyKysely } from 'kysely/readonly'
import pg from 'pg'
import type { Logger } from 'pino'
import { withoutPassword, type Config } from '../../config/config.ts'
import { StartupError } from '../startup.ts'
import { lockDataDirectory, type DataDirectoryLock } from './data-directory-lock.ts'
import { initialiseDataDirectory } from './initialise-data-directory.ts'
import type { Database } from './schema.ts'
import { hintedPgliteModule } from './pglite-module.ts'
import { PreparingClient } from './prepared-statements.ts'

export type Db = Kysely<Database>
export type Tx = Transaction<Database>
/** Either the database or an open transaction: repo functions accept both. */
export type Executor = Db | Tx

export interface DatabaseHandle {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The embedded instance, when there is one: the queue drives it through the same connection lock. */
  pglite: PGlite | undefined
  /** The PostgreSQL connection string, when there is one: the queue opens its own small pool. */
  url: string | undefined
  /** Connections of the pool now (PostgreSQL; undefined for the embedded database). */
  poolStats(): PoolStats | undefined
  close(): Promise<void>
}

export interface PoolStats {
  total: number
  idle: number
  /** Requests waiting for a connection. */
  waiting: number
}

export interface OpenOptions {
  /** Told of every statement Kysely runs on this database, and whether it failed (per-pool metrics). */
  onQuery?: (failed: boolean) => void
}

/**
 * A handle for reads only (docs/decisions.md, "Read routing (issue 21)"): the endpoints routed to the
 * read replica get this and nothing else. It is Kysely's own read-only type: selectFrom, selectNoFrom
 * and read-only CTEs build; insertInto, updateTable, deleteFrom, mergeInto, schema and getExecutor do
 * not type-check, so neither does a raw `sql`...`.execute(readDb)`: raw SQL goes through readQuery.
 * It is not an Executor, so no repository function that writes accepts it; and a Db is not a ReadDb,
 * so a replica-routed use case cannot be handed the primary by mistake. At run time the replica's
 * sessions are read-only (default_transaction_read_only=on, and a standby refuses writes anyway); where
 * reads go to the primary, readQuery runs in a READ ONLY transaction.
 */
export type ReadDb = ReadonlyKysely<Database>
/** What a repository function that only reads accepts: the read handle, the database or a transaction. */
export type Reader = ReadDb | Executor

/** The Kysely instance behind each read handle, and whether its sessions are read-only already. */
const readSides = new WeakMap<ReadDb, { db: Db; readOnlySession: boolean }>()

/**
 * A read handle over `db` (platform/db only: openReadDatabase). With readOnlySession the connections
 * refuse writes themselves (the replica's pool); without it readQuery adds a READ ONLY transaction.
 */
export function readHandleOver(db: Db, readOnlySession: boolean): ReadDb {
  const read = db as unknown as ReadDb
  readSides.set(read, { db, readOnlySession })
  return read
}

/**
 * Raw SQL on the read handle. A statement that writes fails at run time with SQLSTATE 25006
 * (read_only_sql_transaction): on the replica's read-only sessions, or in the READ ONLY transaction
 * it is wrapped in where reads go to the primary.
 */
export async function readQuery<Row>(db: ReadDb, query: RawBuilder<Row>): Promise<QueryResult<Row>> {
  const side = readSides.get(db)
  if (!side) throw new Error('readQuery needs a read handle made by openReadDatabase')
  if (side.readOnlySession) return query.execute(side.db)
  // SET TRANSACTION rather than Kysely's setAccessMode, which the PGlite driver ignores.
  return side.db.transaction().execute(async (tx) => {
    await sql`SET TRANSACTION READ ONLY`.execute(tx)
    return query.execute(tx)
  })
}

// Dates stay as 'YYYY-MM-DD' strings and bigints as strings on both transports, so a value read back
// is the value written and JSON never meets a JS Date shifted by the server's time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)

// Tests only: a dump (PGlite dumpDataDir) that each new in-memory database starts from instead of an
// empty cluster, so a test run pays for initdb, the migrations and the reference seed once.
let inMemoryTemplate: Blob | undefined

/** Tests only: in-memory databases opened from now on start as copies of `dump` (undefined: empty again). */
export function startInMemoryDatabasesFrom(dump: Blob | undefined): void {
  inMemoryTemplate = dump
}

/** Kysely instances whose every transaction runs alone, one after another (the embedded database). */
const serialised = new WeakSet<object>()

/**
 * Whether transactions on `db` run one at a time, never side by side: true for the embedded database
 * (PGlite runs each query and each transaction exclusively on its one connection), false for a
 * PostgreSQL pool and for a transaction handle. Then what one transaction committed is all there is
 * until the next begins, so a sequence's numbers are committed in the order they were taken.
 */
export function transactionsRunAlone(db: unknown): boolean {
  return typeof db === 'object' && db !== null && serialised.has(db)
}

export async function openDatabase(
  config: Config['database'],
  logger?: Pick<Logger, 'warn'>,
  options: OpenOptions = {},
): Promise<DatabaseHandle> {
  const log = queryObserver(options.onQuery)
  if (config.kind === 'postgres') {
    const { db, pool } = await openPostgres(config.url, config, logger, 'DATABASE_URL', options.onQuery)
    return {
      db,
      kind: 'postgres',
      pglite: undefined,
      url: config.url,
      poolStats: () => statsOf(pool),
      close: () => db.destroy(),
    }
  }
  const inMemory = config.dataDir.startsWith('memory://')
  let lock: DataDirectoryLock | undefined
  if (!inMemory) {
    await mkdir(config.dataDir, { recursive: true })
    lock = lockDataDirectory(config.dataDir)
  }
  try {
    // initdb, when the directory is new, in a process of its own: its peak and what it leaves in
    // malloc's heap are not the service's (initialise-data-directory.ts).
    if (!inMemory) await initialiseDataDirectory(config.dataDir)
    const pgliteWasmModule = await hintedPgliteModule()
    const pglite = await PGlite.create(inMemory ? undefined : config.dataDir, {
      parsers: { 1082: (value: string) => value },
      // Its largest functions kept from V8's optimising compiler, where the launcher's flags allow (pglite-module.ts).
      ...(pgliteWasmModule ? { pgliteWasmModule } : {}),
      // Server settings are start parameters (-c), after PGlite's own, which they must keep.
      ...(config.sharedBuffersMb === undefined
        ? {}
        : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${config.sharedBuffersMb}MB`] }),
      ...(inMemory && inMemoryTemplate ? { loadDataDir: inMemoryTemplate } : {}),
    })
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }), ...log })
    serialised.add(db)
    return {
      db,
      kind: 'pglite',
      pglite,
      url: undefined,
      poolStats: () => undefined,
      close: () => db.destroy().finally(() => lock?.release()),
    }
  } catch (error) {
    lock?.release()
    throw error
  }
}

/**
 * A pool on one PostgreSQL server, checked with a query before it is returned (platform/db only: the
 * primary here, the replica in read-database.ts). `setting` names the variable the URL came from, in
 * the start-up error. `sessionOptions` are server settings for every connection (libpq's options).
 */
export async function openPostgres(
  url: string,
  config: { poolSize: number; connectTimeoutSeconds: number },
  logger: Pick<Logger, 'warn'> | undefined,
  setting: string,
  onQuery?: (failed: boolean) => void,
  sessionOptions?: string,
): Promise<{ db: Db; pool: pg.Pool }> {
  // A request waits at most connectTimeoutSeconds for a connection (a new one, or a free one from a
  // busy pool), then fails and is answered 503; without it a request would hang for as long as the
  // server is unreachable. Connections are made afresh after an outage, so service resumes by itself.
  const pool = new pg.Pool({
    connectionString: url,
    max: config.poolSize,
    connectionTimeoutMillis: config.connectTimeoutSeconds * 1000,
    Client: PreparingClient,
    ...(sessionOptions === undefined ? {} : { options: sessionOptions }),
  })
  // An idle connection can be cut by the server (restart, failover, admin command). Without a
  // listener that error would end the process; the pool replaces the connection on next use.
  pool.on('error', (error) => logger?.warn({ err: error, setting }, 'idle database connection closed by the server'))
  // A connection lost while checked out (mid-query, or between a transaction's statements) also
  // emits 'error' on its client, where pg-pool listens only while the client is idle; unheard, that
  // event would end the process. The query in flight fails with the same error, and that failure is
  // what the request answers (503) and logs, so the event itself needs nothing more.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...queryObserver(onQuery) })
  try {
    await pingDatabase(db)
  } catch (error) {
    await db.destroy()
    throw connectionError(error, url, setting)
  }
  return { db, pool }
}

export function statsOf(pool: pg.Pool): PoolStats {
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }
}

/** Kysely's log hook, used to count statements (it is called for each one, and builds no event unless asked). */
function queryObserver(onQuery: OpenOptions['onQuery']): { log?: (event: LogEvent) => void } {
  return onQuery ? { log: (event) => onQuery(event.level === 'error') } : {}
}

// What went wrong connecting, in words an operator can act on, naming the server and the database
// but never the password (a driver error can quote the connection string).
function connectionError(error: unknown, url: string, setting: string): Error {
  const { code } = error as { code?: unknown }
  const parsed = new URL(url)
  const server = `${parsed.hostname || 'localhost'}:${parsed.port || 5432}`
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || '(default)'
  const user = decodeURIComponent(parsed.username) || '(default)'
  const reason = ((): [string, string] => {
    switch (code) {
      case 'ECONNREFUSED':
        return [
          'database-unreachable',
          `PostgreSQL at ${server} refused the connection: is it running, and are the host and port in ${setting} right?`,
        ]
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return [
          'database-unreachable',
          `PostgreSQL at ${server} cannot be reached (${code}): check the host in ${setting} and the network`,
        ]
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return [
          'database-unreachable',
          `the PostgreSQL host ${parsed.hostname} is not known (${code}): check the host in ${setting}`,
        ]
      case '28P01':
      case '28000':
        return [
          'database-authentication-failed',
          `PostgreSQL at ${server} refused user ${user}: check the user and password in ${setting}`,
        ]
      case '3D000':
        return [
          'database-not-found',
          `database ${database} does not exist on PostgreSQL at ${server}: create it (createdb ${database}) or correct ${setting}`,
        ]
      default:
        return [
          'database-unavailable',
          `cannot use PostgreSQL at ${server}: ${withoutSecret(String((error as Error)?.message ?? error), parsed.password)}`,
        ]
    }
  })()
  return new StartupError(reason[0], reason[1], {
    database: withoutPassword(url),
    code: typeof code === 'string' ? code : undefined,
  })
}

function withoutSecret(message: string, encodedPassword: string): string {
  const cleaned = withoutPassword(message)
  if (!encodedPassword) return cleaned
  return cleaned.replaceAll(encodedPassword, '***').replaceAll(decodeURIComponent(encodedPassword), '***')
}

/** Resolves when the database answers a trivial query (readiness). */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db)
}
