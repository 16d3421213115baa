// A discarded batch takes its validation runs with it, and a run its results: nothing is left behind
// that no request can reach. (Results of runs superseded by a later completed run are deleted when
// that run completes.)
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE validation_run ADD FOREIGN KEY (rto_id, transaction_batch_token)
    REFERENCES transaction_batch (rto_id, transaction_batch_token) ON DELETE CASCADE`.execute(db)
  await sql`ALTER TABLE validation_result ADD FOREIGN KEY (rto_id, run_id)
    REFERENCES validation_run (rto_id, run_id) ON DELETE CASCADE`.execute(db)
}
