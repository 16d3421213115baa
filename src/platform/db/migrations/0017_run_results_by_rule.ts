// A completed run keeps its failed results counted per rule (issue 20: the console's batch and
// assessment pages show them on every view, and counting 100,000 results per view cost more than the
// page of results itself). Written by the run lifecycle's completing statement, from the attempt's own
// results; NULL for runs completed before this migration, which are counted when read.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE validation_run ADD COLUMN results_by_rule jsonb`.execute(db)
  await sql`ALTER TABLE assessment_run ADD COLUMN results_by_rule jsonb`.execute(db)
}
