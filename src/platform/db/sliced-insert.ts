// A rule's results written in slices (issue 30). On the embedded database a statement runs on the
// service's thread and holds the only connection: a rule that finds 20,000 rows wrote them all in the
// statement that found them (0.6 s at 20,000 records on a loaded machine, most of it the writing: the
// result table's key, its foreign key checked per row, the log). Here the rows are found by one
// statement into a temporary table (no index, no foreign key, no log), and then copied into the result
// table `sliceRows` at a time, each copy its own statement with the event loop given a turn before it,
// so requests that arrived meanwhile go first. Every row keeps the place the one statement gave it.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql, type RawBuilder } from 'kysely'
import { transactionsRunAlone, type Db, type Executor } from './database.ts'

/** Rows per statement on the embedded database when the setting gives none (bench/results.md). */
export const EMBEDDED_SLICE_ROWS = 1000

/**
 * The rows per statement a run writes its results in: the setting (a number; null for one statement
 * per rule), or by default slices on the embedded database, where a statement holds the service's
 * thread, and one statement per rule on PostgreSQL, where it holds one pool connection and no one
 * else's thread. Undefined: one statement.
 */
export function resultSliceRowsFor(db: Db, setting: number | null | undefined): number | undefined {
  if (setting === undefined) return transactionsRunAlone(db) ? EMBEDDED_SLICE_ROWS : undefined
  return setting ?? undefined
}

export interface SlicedInsert {
  /** The table written. */
  table: string
  /** Its columns, in the order `values` gives them. */
  columns: readonly string[]
  /**
   * A SELECT of the found rows, its columns named, with `slice_ord`: each row's place (1, 2, ...) in the
   * order the rows are to be written (a result table's `seq` follows the order of writing).
   */
  rows: RawBuilder<unknown>
  /**
   * The values of `columns` for one found row `f` (a row of `rows`), computed as each slice is written:
   * what is the same for every row or derived from one row alone (an RTO, a rule's texts, an id hashed
   * from the row's group) then costs the finding statement, the one that cannot be cut, nothing.
   */
  values: RawBuilder<unknown>
  /** Settings for the statement that finds the rows (SET LOCAL ...), inside its transaction. */
  settings: (tx: Executor) => Promise<void>
  /**
   * Unique among the writes that may run at once in this process (two jobs take turns on the embedded
   * database's one session): the temporary table is named after it.
   */
  name: string
}

/** Writes `insert.rows` into `insert.table`, `sliceRows` per statement; the number of rows written. */
export async function insertInSlices(db: Db, insert: SlicedInsert, sliceRows: number): Promise<number> {
  // A temporary table lives in one session. The embedded database has only one, and pinning it would
  // hold it for every other request; a pool pins one connection for the write (the same rows, no gain
  // in time there: this runs on PostgreSQL only when asked to, see the callers).
  if (transactionsRunAlone(db)) return write(db, insert, sliceRows)
  return db.connection().execute((connection) => write(connection, insert, sliceRows))
}

async function write(db: Db, insert: SlicedInsert, sliceRows: number): Promise<number> {
  const found = sql.table(`pg_temp.${insert.name}`)
  const columns = sql.join(insert.columns.map((column) => sql.id(column)))
  try {
    await db.transaction().execute(async (tx) => {
      await insert.settings(tx)
      await sql`CREATE TEMP TABLE ${sql.id(insert.name)} AS ${insert.rows}`.execute(tx)
    })
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${found}`.execute(db)
    const total = rows[0]!.n
    // Each slice reads its range through an index rather than the whole table again.
    if (total > sliceRows) await sql`CREATE INDEX ON ${found} (slice_ord)`.execute(db)
    for (let from = 0; from < total; from += sliceRows) {
      await yieldToEventLoop()
      await sql`
        INSERT INTO ${sql.table(insert.table)} (${columns})
        SELECT ${insert.values} FROM ${found} AS f
         WHERE f.slice_ord > ${from}::bigint AND f.slice_ord <= ${from + sliceRows}::bigint
         ORDER BY f.slice_ord`.execute(db)
    }
    return total
  } finally {
    await sql`DROP TABLE IF EXISTS ${found}`.execute(db)
  }
}
