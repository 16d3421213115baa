// A dense per-dataset position for every reference version, in the order versions are stamped. A
// page of a synchronisation is then a range of positions read from an index, however deep the page,
// instead of an OFFSET that skips every row before it.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE reference_record_version ADD COLUMN dataset_seq bigint`.execute(db)
  await sql`
    UPDATE reference_record_version v SET dataset_seq = numbered.position
      FROM (SELECT version_id, row_number() OVER (PARTITION BY dataset ORDER BY sys_effective_from, version_id) AS position
              FROM reference_record_version) AS numbered
     WHERE v.version_id = numbered.version_id`.execute(db)
  await sql`ALTER TABLE reference_record_version ALTER COLUMN dataset_seq SET NOT NULL`.execute(db)
  await sql`CREATE UNIQUE INDEX reference_record_version_position_idx ON reference_record_version (dataset, dataset_seq)`.execute(
    db,
  )
}
