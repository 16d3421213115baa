// One SQL dialect, PostgreSQL, over two transports: embedded PGlite (the default, data in a directory
// or in memory) and a real PostgreSQL server through DATABASE_URL. Everything above this file runs
// the same Kysely code on both.
import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect, sql, type Transaction } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import { withoutPassword, type Config } from '../../config/config.ts'
import { StartupError } from '../startup.ts'
import { lockDataDirectory, type DataDirectoryLock } from './data-directory-lock.ts'
import type { Database } from './schema.ts'
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
  close(): Promise<void>
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

export async function openDatabase(config: Config['database'], logger?: Pick<Logger, 'warn'>): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') {
    // A request waits at most connectTimeoutSeconds for a connection (a new one, or a free one from a
    // busy pool), then fails and is answered 503; without it a request would hang for as long as the
    // server is unreachable. Connections are made afresh after an outage, so service resumes by itself.
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      connectionTimeoutMillis: config.connectTimeoutSeconds * 1000,
      Client: PreparingClient,
    })
    // An idle connection can be cut by the server (restart, failover, admin command). Without a
    // listener that error would end the process; the pool replaces the connection on next use.
    pool.on('error', (error) => logger?.warn({ err: error }, 'idle database connection closed by the server'))
    // A connection lost while checked out (mid-query, or between a transaction's statements) also
    // emits 'error' on its client, where pg-pool listens only while the client is idle; unheard, that
    // event would end the process. The query in flight fails with the same error, and that failure is
    // what the request answers (503) and logs, so the event itself needs nothing more.
    pool.on('connect', (client) => client.on('error', () => {}))
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    try {
      await pingDatabase(db)
    } catch (error) {
      await db.destroy()
      throw connectionError(error, config.url)
    }
    return { db, kind: 'postgres', pglite: undefined, url: config.url, close: () => db.destroy() }
  }
  const inMemory = config.dataDir.startsWith('memory://')
  let lock: DataDirectoryLock | undefined
  if (!inMemory) {
    await mkdir(config.dataDir, { recursive: true })
    lock = lockDataDirectory(config.dataDir)
  }
  try {
    const pglite = await PGlite.create(inMemory ? undefined : config.dataDir, {
      parsers: { 1082: (value: string) => value },
      ...(inMemory && inMemoryTemplate ? { loadDataDir: inMemoryTemplate } : {}),
    })
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
    return { db, kind: 'pglite', pglite, url: undefined, close: () => db.destroy().finally(() => lock?.release()) }
  } catch (error) {
    lock?.release()
    throw error
  }
}

// What went wrong connecting, in words an operator can act on, naming the server and the database
// but never the password (a driver error can quote the connection string).
function connectionError(error: unknown, url: string): Error {
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
          `PostgreSQL at ${server} refused the connection: is it running, and are the host and port in DATABASE_URL right?`,
        ]
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return [
          'database-unreachable',
          `PostgreSQL at ${server} cannot be reached (${code}): check the host in DATABASE_URL and the network`,
        ]
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return [
          'database-unreachable',
          `the PostgreSQL host ${parsed.hostname} is not known (${code}): check the host in DATABASE_URL`,
        ]
      case '28P01':
      case '28000':
        return [
          'database-authentication-failed',
          `PostgreSQL at ${server} refused user ${user}: check the user and password in DATABASE_URL`,
        ]
      case '3D000':
        return [
          'database-not-found',
          `database ${database} does not exist on PostgreSQL at ${server}: create it (createdb ${database}) or correct DATABASE_URL`,
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
