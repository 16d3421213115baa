// Reference and classification data. Every change is a new version row; rows are never deleted and
// never re-dated, so a synchronising consumer paging by (sysEffectiveFrom, version) sees a sequence
// that only grows at its end.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE reference_record_version (
      version_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      dataset text NOT NULL,
      record_id uuid NOT NULL,
      code text NOT NULL,
      description text NOT NULL,
      avetmiss_code text,
      business_effective_from date,
      business_effective_to date,
      status text NOT NULL CHECK (status IN ('Active', 'Inactive')),
      sys_effective_from timestamptz NOT NULL,
      is_current boolean NOT NULL DEFAULT true
    )`.execute(db)
  await sql`CREATE INDEX reference_record_version_sync_idx ON reference_record_version (dataset, sys_effective_from, version_id)`.execute(
    db,
  )
  await sql`CREATE UNIQUE INDEX reference_record_version_current_idx ON reference_record_version (dataset, code) WHERE is_current`.execute(
    db,
  )
}
