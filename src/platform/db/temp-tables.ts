// Temporary tables for work done in pieces (issue 30: rules found slice by slice, then stored as one).
// A temporary table lives in one session: on PostgreSQL the work runs on one pinned pool connection; the
// embedded database has one session, and pinning it would stop every other request, so it runs there.
import { sql, type RawBuilder } from 'kysely'
import { transactionsRunAlone, type Db } from './database.ts'

/**
 * Runs `work` with a temporary table of `columns` for each of `names` (unique among the works that may
 * run at once in this process), dropped after, whatever `work` does. `work` is given the session to
 * use and each table, in the order of `names`.
 */
export async function withTempTables(
  db: Db,
  names: readonly string[],
  columns: RawBuilder<unknown>,
  work: (conn: Db, tables: RawBuilder<unknown>[]) => Promise<void>,
): Promise<void> {
  const tables = names.map((name) => sql.table(`pg_temp.${name}`))
  const run = async (conn: Db) => {
    try {
      for (const name of names) await sql`CREATE TEMP TABLE ${sql.id(name)} (${columns})`.execute(conn)
      await work(conn, tables)
    } finally {
      for (const table of tables) await sql`DROP TABLE IF EXISTS ${table}`.execute(conn)
    }
  }
  if (transactionsRunAlone(db)) await run(db)
  else await db.connection().execute(run)
}

/** `withTempTables` with one table. */
export function withTempTable(
  db: Db,
  name: string,
  columns: RawBuilder<unknown>,
  work: (conn: Db, table: RawBuilder<unknown>) => Promise<void>,
): Promise<void> {
  return withTempTables(db, [name], columns, (conn, [table]) => work(conn, table!))
}
