// Record bodies compressed with lz4 instead of pglz where the server has it (issue 19: bulk
// ingestion). A 2 KB Student is just above the size at which PostgreSQL compresses a row, so every
// stored body was compressed with pglz, about a fifth of the database's work per uploaded record;
// lz4 does the same in a fraction of the time and reads back faster. Only the column's setting
// changes (no rewrite, no lock held for long): bodies written before keep pglz and read as before.
// PGlite is built without lz4 and keeps pglz. docs/decisions.md, "Record bodies compressed with lz4".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ lz4: boolean }>`
    SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`.execute(db)
  if (rows[0]?.lz4 !== true) return
  await sql`ALTER TABLE batch_record ALTER COLUMN body SET COMPRESSION lz4`.execute(db)
  await sql`ALTER TABLE held_record ALTER COLUMN body SET COMPRESSION lz4`.execute(db)
}
