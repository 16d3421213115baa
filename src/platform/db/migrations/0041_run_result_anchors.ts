// A completed run keeps the key (seq) of every 1,000th of its results in order (issue 32: a deep page
// of a 110,000-result batch found its start by counting through the results before it, an OFFSET over
// the primary key, 33 ms at page 1980 where page 1 costs 2). A page starts from the nearest kept key at
// or before it and counts at most 999 more. Written by the run lifecycle's completing statement; NULL
// for runs completed before this migration, whose pages count from the start as before.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE validation_run ADD COLUMN result_anchors bigint[]`.execute(db)
  await sql`ALTER TABLE assessment_run ADD COLUMN result_anchors bigint[]`.execute(db)
}
