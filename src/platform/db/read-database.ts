// The read side: where the endpoints routed to the read replica read (docs/decisions.md, "Read routing
// (issue 21)"). With DATABASE_READ_URL, a pool of its own on the streaming replica, every session
// read-only; without it, the primary, through the same read-only type. Either way the handle is a
// ReadDb, which nothing that writes accepts.
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { withoutPassword, type Config } from '../../config/config.ts'
import { StartupError } from '../startup.ts'
import {
  openPostgres,
  pingDatabase,
  readHandleOver,
  statsOf,
  type DatabaseHandle,
  type Db,
  type PoolStats,
  type ReadDb,
} from './database.ts'

export interface ReadHandle {
  db: ReadDb
  /** Where the reads go: the replica of DATABASE_READ_URL, or the primary. */
  source: 'replica' | 'primary'
  /** Resolves when the read side answers a trivial query (readiness). */
  ping(): Promise<void>
  /** Connections of the replica's pool (undefined when reads go to the primary: its pool is the primary's). */
  poolStats(): PoolStats | undefined
  /** Closes the replica's pool (nothing when reads go to the primary). */
  close(): Promise<void>
}

/**
 * Every connection of the replica's pool starts read-only: a statement that writes fails with 25006
 * whatever the server is, even if DATABASE_READ_URL names a primary by mistake.
 */
export const READ_ONLY_SESSION = '-c default_transaction_read_only=on'

export async function openReadDatabase(
  config: Config['database'],
  primary: DatabaseHandle,
  options: { logger?: Pick<Logger, 'warn' | 'info'>; onQuery?: (failed: boolean) => void } = {},
): Promise<ReadHandle> {
  if (config.kind !== 'postgres' || config.readUrl === undefined) {
    const db = readHandleOver(primary.db, false)
    return {
      db,
      source: 'primary',
      ping: () => pingDatabase(primary.db),
      poolStats: () => undefined,
      close: async () => {},
    }
  }
  const { db, pool } = await openPostgres(
    config.readUrl,
    config,
    options.logger,
    'DATABASE_READ_URL',
    options.onQuery,
    READ_ONLY_SESSION,
  )
  try {
    await checkSameDatabase(primary.db, db, config.readUrl, options.logger)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return {
    db: readHandleOver(db, true),
    source: 'replica',
    ping: () => pingDatabase(db),
    poolStats: () => statsOf(pool),
    close: () => db.destroy(),
  }
}

/**
 * DATABASE_READ_URL must reach a copy of DATABASE_URL's database: the same cluster (system identifier)
 * and the same database name. Another server would answer every routed read from other data, silently.
 * Where the identifier cannot be read (a managed service that restricts pg_control_system), only the
 * database name is compared, and a warning says so.
 */
async function checkSameDatabase(
  primary: Db,
  replica: Db,
  readUrl: string,
  logger: Pick<Logger, 'warn' | 'info'> | undefined,
): Promise<void> {
  const identify = async (db: Db) => {
    const [row] = (
      await sql<{ database: string; recovery: boolean }>`
      SELECT current_database() AS database, pg_is_in_recovery() AS recovery`.execute(db)
    ).rows
    const system = await sql<{ id: string }>`SELECT system_identifier::text AS id FROM pg_control_system()`
      .execute(db)
      .then((result) => result.rows[0]?.id)
      .catch(() => undefined)
    return { database: row!.database, recovery: row!.recovery, system }
  }
  const [main, read] = await Promise.all([identify(primary), identify(replica)])
  const mismatch =
    main.database !== read.database
      ? `it names database ${read.database}, DATABASE_URL names ${main.database}`
      : main.system !== undefined && read.system !== undefined && main.system !== read.system
        ? `it is another PostgreSQL cluster (system identifier ${read.system}, the primary's is ${main.system}), not a replica of the primary`
        : undefined
  if (mismatch)
    throw new StartupError(
      'database-read-mismatch',
      `DATABASE_READ_URL must reach a streaming replica of DATABASE_URL's database, and ${mismatch}`,
      { database: withoutPassword(readUrl) },
    )
  if (main.system === undefined || read.system === undefined)
    logger?.warn('DATABASE_READ_URL: cannot read pg_control_system(); only the database names were compared')
  if (!read.recovery)
    logger?.warn(
      'DATABASE_READ_URL names a server that is not in recovery (not a standby): routed reads run there, read-only',
    )
}
